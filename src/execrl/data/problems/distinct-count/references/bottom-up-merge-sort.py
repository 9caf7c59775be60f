# O(n log n) in pure Python: iterative bottom-up merge sort (runs of width 1, 2, 4, ...),
# then a scan for value changes.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    src = list(map(int, data[1 : 1 + n]))
    dst = [0] * n
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if src[i] <= src[j]:
                    dst[k] = src[i]
                    i += 1
                else:
                    dst[k] = src[j]
                    j += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
        src, dst = dst, src
        width *= 2
    count = 1
    for i in range(1, n):
        if src[i] != src[i - 1]:
            count += 1
    print(count)


main()
