import sys


def lcs(a, b):
    prev = [0] * (len(b) + 1)
    for ca in a:
        cur = [0]
        push = cur.append
        left = 0
        for j, cb in enumerate(b):
            if ca == cb:
                left = prev[j] + 1
            else:
                up = prev[j + 1]
                if up > left:
                    left = up
            push(left)
        prev = cur
    return prev[-1]


def main():
    data = sys.stdin.read().split()
    t = int(data[0])
    out = [str(lcs(data[1 + 2 * i], data[2 + 2 * i])) for i in range(t)]
    print("\n".join(out))


main()
