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
        elif a[lo] == a[hi]:
            m = hi - lo + 1
            total += m * (m - 1) // 2
            break
        else:
            x, y = a[lo], a[hi]
            cx = 0
            while a[lo] == x:
                lo += 1
                cx += 1
            cy = 0
            while a[hi] == y:
                hi -= 1
                cy += 1
            total += cx * cy
    print(total)


main()
