# Offline by right end with a Fenwick tree marking the last occurrence of each value.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    a = data[2 : n + 2]
    by_right = [[] for _ in range(n + 1)]
    pos = n + 2
    for qi in range(q):
        by_right[int(data[pos + 1])].append((int(data[pos]), qi))
        pos += 2
    tree = [0] * (n + 1)

    def add(i, delta):
        while i < n:
            tree[i] += delta
            i += i & -i

    def prefix(i):
        s = 0
        while i > 0:
            s += tree[i]
            i -= i & -i
        return s

    last = {}
    answers = [0] * q
    for r in range(1, n + 1):
        v = a[r - 1]
        if v in last:
            add(last[v], -1)
        last[v] = r
        add(r, 1)
        for l, qi in by_right[r]:
            answers[qi] = prefix(r) - prefix(l - 1)
    sys.stdout.write("\n".join(map(str, answers)) + "\n")


main()
