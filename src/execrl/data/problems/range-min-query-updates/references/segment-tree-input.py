def main():
    n, q = map(int, input().split())
    a = list(map(int, input().split()))
    size = 1
    while size < n:
        size *= 2
    tree = [float("inf")] * (2 * size)
    for i in range(n):
        tree[size + i] = a[i]
    for v in range(size - 1, 0, -1):
        tree[v] = min(tree[2 * v], tree[2 * v + 1])
    for _ in range(q):
        kind, u, w = map(int, input().split())
        if kind == 1:
            v = u - 1 + size
            tree[v] = w
            v //= 2
            while v >= 1:
                tree[v] = min(tree[2 * v], tree[2 * v + 1])
                v //= 2
        else:
            lo, hi = u - 1 + size, w + size
            best = float("inf")
            while lo < hi:
                if lo % 2 == 1:
                    best = min(best, tree[lo])
                    lo += 1
                if hi % 2 == 1:
                    hi -= 1
                    best = min(best, tree[hi])
                lo //= 2
                hi //= 2
            print(best)


main()
