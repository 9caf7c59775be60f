# Offline by right end; a recursive segment tree over positions stores 1 at the last
# occurrence of each value seen so far, and a range sum answers each query.
import sys

sys.setrecursionlimit(10000)


def update(tree, node, lo, hi, pos, delta):
    tree[node] += delta
    if lo == hi:
        return
    mid = (lo + hi) // 2
    if pos <= mid:
        update(tree, 2 * node, lo, mid, pos, delta)
    else:
        update(tree, 2 * node + 1, mid + 1, hi, pos, delta)


def query(tree, node, lo, hi, l, r):
    if r < lo or hi < l:
        return 0
    if l <= lo and hi <= r:
        return tree[node]
    mid = (lo + hi) // 2
    return query(tree, 2 * node, lo, mid, l, r) + query(tree, 2 * node + 1, mid + 1, hi, l, r)


def main():
    input = sys.stdin.readline
    n, q = map(int, input().split())
    a = input().split()
    by_right = [[] for _ in range(n)]
    for qi in range(q):
        l, r = map(int, input().split())
        by_right[r - 1].append((l - 1, qi))
    tree = [0] * (4 * n)
    last = {}
    answers = [0] * q
    for r in range(n):
        v = a[r]
        if v in last:
            update(tree, 1, 0, n - 1, last[v], -1)
        last[v] = r
        update(tree, 1, 0, n - 1, r, 1)
        for l, qi in by_right[r]:
            answers[qi] = query(tree, 1, 0, n - 1, l, r)
    print("\n".join(map(str, answers)))


main()
