# O((n + q) log n): Fenwick tree, line-by-line input() and one print per query.
def main():
    n, q = map(int, input().split())
    a = list(map(int, input().split()))
    tree = [0] * (n + 1)
    for i in range(1, n + 1):
        tree[i] += a[i - 1]
        j = i + (i & -i)
        if j <= n:
            tree[j] += tree[i]

    def prefix(i):
        s = 0
        while i > 0:
            s += tree[i]
            i -= i & -i
        return s

    for _ in range(q):
        l, r = map(int, input().split())
        print(prefix(r) - prefix(l - 1))


main()
