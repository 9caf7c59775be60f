import sys


def best_in(a, lo, hi):
    # maximum subarray of a[lo:hi] by halving; the crossing sum is found by scanning
    if hi - lo == 1:
        return a[lo]
    mid = (lo + hi) // 2
    left_best = best_in(a, lo, mid)
    right_best = best_in(a, mid, hi)
    s = 0
    suffix = a[mid - 1]
    for i in range(mid - 1, lo - 1, -1):
        s += a[i]
        if s > suffix:
            suffix = s
    s = 0
    prefix = a[mid]
    for i in range(mid, hi):
        s += a[i]
        if s > prefix:
            prefix = s
    return max(left_best, right_best, suffix + prefix)


def main():
    n = int(input())
    a = list(map(int, input().split()))
    print(best_in(a, 0, n))


sys.setrecursionlimit(10000)
main()
