import sys


def lcs(a, b):
    m = len(b)
    prev = bytearray(m + 1)
    for ca in a:
        cur = bytearray(m + 1)
        for j in range(m):
            if ca == b[j]:
                cur[j + 1] = prev[j] + 1
            else:
                up = prev[j + 1]
                cur[j + 1] = up if up > cur[j] else cur[j]
        prev = cur
    return prev[m]


def main():
    data = sys.stdin.read().split()
    t = int(data[0])
    print("\n".join(str(lcs(data[1 + 2 * i], data[2 + 2 * i])) for i in range(t)))


main()
