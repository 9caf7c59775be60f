def main():
    n = int(input())
    a = list(map(int, input().split()))
    rank = {v: i + 1 for i, v in enumerate(sorted(set(a)))}
    m = len(rank)
    tree = [0] * (m + 1)  # prefix-maximum Fenwick tree over value ranks
    best = 0
    for x in a:
        r = rank[x]
        # longest run ending in a value of rank < r
        i = r - 1
        length = 0
        while i > 0:
            if tree[i] > length:
                length = tree[i]
            i -= i & -i
        length += 1
        if length > best:
            best = length
        i = r
        while i <= m:
            if tree[i] < length:
                tree[i] = length
            i += i & -i
    print(best)


main()
