# Offline: answer queries sorted by right end. Keep a Fenwick tree over positions where
# only the last occurrence (so far) of each value is marked; the answer to [l, r] is the
# number of marks in [l, r].
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    a = data[2 : n + 2]  # values only need equality, bytes tokens are fine
    pos = n + 2
    by_right = [[] for _ in range(n + 1)]
    for qi in range(q):
        l, r = int(data[pos]), int(data[pos + 1])
        pos += 2
        by_right[r].append((l, qi))
    tree = [0] * (n + 1)
    last = {}
    answers = [0] * q
    marked = 0
    for r in range(1, n + 1):
        v = a[r - 1]
        p = last.get(v)
        if p is not None:
            i = p
            while i <= n:
                tree[i] -= 1
                i += i & -i
            marked -= 1
        last[v] = r
        i = r
        while i <= n:
            tree[i] += 1
            i += i & -i
        marked += 1
        for l, qi in by_right[r]:
            # marks in [l, r] = all marks (all are <= r) minus marks in [1, l - 1]
            s = 0
            i = l - 1
            while i > 0:
                s += tree[i]
                i -= i & -i
            answers[qi] = marked - s
    sys.stdout.write("\n".join(map(str, answers)) + "\n")


main()
