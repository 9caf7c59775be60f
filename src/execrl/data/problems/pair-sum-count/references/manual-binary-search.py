def lower_bound(a, lo, hi, x):
    # first index in [lo, hi) whose value is >= x
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def main():
    n, k = map(int, input().split())
    a = sorted(map(int, input().split()))
    total = 0
    for i in range(n):
        w = k - a[i]
        first = lower_bound(a, i + 1, n, w)
        last = lower_bound(a, first, n, w + 1)
        total += last - first
    print(total)


main()
