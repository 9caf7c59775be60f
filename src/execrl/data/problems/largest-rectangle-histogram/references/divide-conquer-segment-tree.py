# Divide and conquer on the lowest bar of each range; the lowest bar (leftmost on ties)
# is found with a recursive segment tree of argmin indices.
import sys

sys.setrecursionlimit(10000)


def main():
    input = sys.stdin.readline
    n = int(input())
    h = list(map(int, input().split()))
    tree = [0] * (4 * n)

    def better(i, j):
        if h[i] < h[j] or (h[i] == h[j] and i < j):
            return i
        return j

    def build(node, lo, hi):
        if lo == hi:
            tree[node] = lo
            return
        mid = (lo + hi) // 2
        build(2 * node, lo, mid)
        build(2 * node + 1, mid + 1, hi)
        tree[node] = better(tree[2 * node], tree[2 * node + 1])

    def query(node, lo, hi, l, r):
        if l <= lo and hi <= r:
            return tree[node]
        mid = (lo + hi) // 2
        if r <= mid:
            return query(2 * node, lo, mid, l, r)
        if l > mid:
            return query(2 * node + 1, mid + 1, hi, l, r)
        return better(query(2 * node, lo, mid, l, r), query(2 * node + 1, mid + 1, hi, l, r))

    build(1, 0, n - 1)
    best = 0
    todo = [(0, n - 1)]
    while todo:
        lo, hi = todo.pop()
        m = query(1, 0, n - 1, lo, hi)
        area = h[m] * (hi - lo + 1)
        if area > best:
            best = area
        if lo < m:
            todo.append((lo, m - 1))
        if m < hi:
            todo.append((m + 1, hi))
    print(best)


main()
