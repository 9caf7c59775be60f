def main():
    n, k = map(int, input().split())
    a = list(map(int, input().split()))
    size = 1
    while size < n:
        size *= 2
    tree = [-(10**18)] * (2 * size)  # iterative max segment tree over positions
    tree[size : size + n] = a
    for v in range(size - 1, 0, -1):
        tree[v] = max(tree[2 * v], tree[2 * v + 1])
    out = []
    for i in range(n - k + 1):
        # maximum of a[i : i + k]
        lo, hi = i + size, i + k + size
        best = tree[lo]
        while lo < hi:
            if lo & 1:
                best = max(best, tree[lo])
                lo += 1
            if hi & 1:
                hi -= 1
                best = max(best, tree[hi])
            lo //= 2
            hi //= 2
        out.append(best)
    print(" ".join(map(str, out)))


main()
