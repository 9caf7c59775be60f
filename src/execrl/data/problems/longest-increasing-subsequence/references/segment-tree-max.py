def main():
    n = int(input())
    a = list(map(int, input().split()))
    values = sorted(set(a))
    rank = {v: i for i, v in enumerate(values)}
    size = 1
    while size < len(values):
        size *= 2
    tree = [0] * (2 * size)  # iterative max segment tree over value ranks

    def query(lo, hi):  # max over ranks [lo, hi)
        res = 0
        lo += size
        hi += size
        while lo < hi:
            if lo & 1:
                res = max(res, tree[lo])
                lo += 1
            if hi & 1:
                hi -= 1
                res = max(res, tree[hi])
            lo //= 2
            hi //= 2
        return res

    def update(pos, value):
        pos += size
        tree[pos] = max(tree[pos], value)
        pos //= 2
        while pos:
            tree[pos] = max(tree[2 * pos], tree[2 * pos + 1])
            pos //= 2

    for x in a:
        r = rank[x]
        update(r, query(0, r) + 1)
    print(tree[1])


main()
