# Offline by right end like the Fenwick solution, but with an iterative (bottom-up)
# segment tree over positions holding 1 at the last occurrence of each value.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    a = data[2 : n + 2]
    by_right = [[] for _ in range(n)]
    pos = n + 2
    for qi in range(q):
        by_right[int(data[pos + 1]) - 1].append((int(data[pos]) - 1, qi))
        pos += 2
    size = 1
    while size < n:
        size *= 2
    tree = [0] * (2 * size)
    last = {}
    answers = [0] * q
    for r in range(n):
        v = a[r]
        p = last.get(v)
        if p is not None:
            i = p + size
            while i:
                tree[i] -= 1
                i >>= 1
        last[v] = r
        i = r + size
        while i:
            tree[i] += 1
            i >>= 1
        for l, qi in by_right[r]:
            s = 0
            lo, hi = l + size, r + size + 1
            while lo < hi:
                if lo & 1:
                    s += tree[lo]
                    lo += 1
                if hi & 1:
                    hi -= 1
                    s += tree[hi]
                lo >>= 1
                hi >>= 1
            answers[qi] = s
    sys.stdout.write("\n".join(map(str, answers)) + "\n")


main()
