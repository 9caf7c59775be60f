# O((n + q) log n): Fenwick tree with the whole input read at once and one joined write.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    tree = [0] * (n + 1)
    for i in range(1, n + 1):
        tree[i] += int(data[1 + i])
        j = i + (i & -i)
        if j <= n:
            tree[j] += tree[i]
    out = []
    pos = 2 + n
    for _ in range(q):
        l = int(data[pos]) - 1
        r = int(data[pos + 1])
        pos += 2
        s = 0
        while r > 0:
            s += tree[r]
            r &= r - 1
        while l > 0:
            s -= tree[l]
            l &= l - 1
        out.append(s)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
