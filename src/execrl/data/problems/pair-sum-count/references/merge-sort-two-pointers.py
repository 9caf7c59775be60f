def merge_sort(a):
    # bottom-up merge sort written out in Python
    n = len(a)
    src = a[:]
    width = 1
    while width < n:
        dst = []
        for start in range(0, n, 2 * width):
            i, mid = start, min(start + width, n)
            j, end = mid, min(start + 2 * width, n)
            while i < mid and j < end:
                if src[j] < src[i]:
                    dst.append(src[j])
                    j += 1
                else:
                    dst.append(src[i])
                    i += 1
            dst.extend(src[i:mid])
            dst.extend(src[j:end])
        src = dst
        width *= 2
    return src


def main():
    n, k = map(int, input().split())
    a = merge_sort(list(map(int, input().split())))
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
            cx = cy = 0
            while a[lo] == x:
                lo += 1
                cx += 1
            while a[hi] == y:
                hi -= 1
                cy += 1
            total += cx * cy
    print(total)


main()
