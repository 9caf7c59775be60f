def main():
    n, k = map(int, input().split())
    a = sorted(map(int, input().split()))
    lo, hi = 0, n - 1
    total = 0
    while lo < hi:
        s = a[lo] + a[hi]
        if s < k:
            lo += 1
        elif s > k:
            hi -= 1
        else:
            total += 1
            lo += 1
            hi -= 1
    print(total)


main()
