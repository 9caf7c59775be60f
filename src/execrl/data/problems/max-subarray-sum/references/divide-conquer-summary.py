import sys


def solve(a, lo, hi):
    # summary of a[lo:hi]: (total, best prefix, best suffix, best subarray), all non-empty
    if hi - lo == 1:
        x = a[lo]
        return x, x, x, x
    mid = (lo + hi) // 2
    lt, lp, ls, lb = solve(a, lo, mid)
    rt, rp, rs, rb = solve(a, mid, hi)
    return (
        lt + rt,
        max(lp, lt + rp),
        max(rs, rt + ls),
        max(lb, rb, ls + rp),
    )


def main():
    n = int(input())
    a = list(map(int, input().split()))
    print(solve(a, 0, n)[3])


sys.setrecursionlimit(10000)
main()
