import sys


def lcs(a, b):
    prev = [0] * (len(b) + 1)
    for ca in a:
        cur = [0]
        push = cur.append
        left = 0
        for cb, diag, up in zip(b, prev, prev[1:]):
            if ca == cb:
                left = diag + 1
            elif up > left:
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
