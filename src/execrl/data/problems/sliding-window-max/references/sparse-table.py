def main():
    n, k = map(int, input().split())
    a = list(map(int, input().split()))
    # table[j][i] = max of a[i : i + 2^j], built level by level up to the largest 2^j <= k
    table = [a]
    j = 1
    while 2 * j <= k:
        prev = table[-1]
        cur = []
        for i in range(len(prev) - j):
            x, y = prev[i], prev[i + j]
            cur.append(x if x > y else y)
        table.append(cur)
        j *= 2
    top = table[-1]
    out = []
    for i in range(n - k + 1):
        x, y = top[i], top[i + k - j]
        out.append(x if x > y else y)
    print(" ".join(map(str, out)))


main()
