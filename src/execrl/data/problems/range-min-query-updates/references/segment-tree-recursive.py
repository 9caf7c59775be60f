import sys


def main():
    n, q = map(int, input().split())
    a = list(map(int, input().split()))
    tree = [0] * (4 * n)

    def build(node, lo, hi):
        if lo == hi:
            tree[node] = a[lo]
            return
        mid = (lo + hi) // 2
        build(2 * node, lo, mid)
        build(2 * node + 1, mid + 1, hi)
        tree[node] = min(tree[2 * node], tree[2 * node + 1])

    def assign(node, lo, hi, i, x):
        if lo == hi:
            tree[node] = x
            return
        mid = (lo + hi) // 2
        if i <= mid:
            assign(2 * node, lo, mid, i, x)
        else:
            assign(2 * node + 1, mid + 1, hi, i, x)
        tree[node] = min(tree[2 * node], tree[2 * node + 1])

    def query(node, lo, hi, l, r):  # min over [l, r] within the node's [lo, hi]
        if l <= lo and hi <= r:
            return tree[node]
        mid = (lo + hi) // 2
        if r <= mid:
            return query(2 * node, lo, mid, l, r)
        if l > mid:
            return query(2 * node + 1, mid + 1, hi, l, r)
        return min(query(2 * node, lo, mid, l, r), query(2 * node + 1, mid + 1, hi, l, r))

    build(1, 0, n - 1)
    for _ in range(q):
        kind, u, w = map(int, input().split())
        if kind == 1:
            assign(1, 0, n - 1, u - 1, w)
        else:
            print(query(1, 0, n - 1, u - 1, w - 1))


sys.setrecursionlimit(10000)
main()
