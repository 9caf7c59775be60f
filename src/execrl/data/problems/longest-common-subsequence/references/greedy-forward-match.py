import sys


def lcs(a, b):
    pos = 0
    count = 0
    for ch in a:
        k = b.find(ch, pos)
        if k >= 0:
            count += 1
            pos = k + 1
    return count


def main():
    data = sys.stdin.read().split()
    t = int(data[0])
    print("\n".join(str(lcs(data[1 + 2 * i], data[2 + 2 * i])) for i in range(t)))


main()
