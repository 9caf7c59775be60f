# O(n log n) sweep line: points in x order, the active ones (x within the current best
# distance) kept in a y-sorted list of packed ints; each new point only checks the active
# points whose y lies within the best distance. Exact integer arithmetic, fast I/O.
import math
import sys
from bisect import bisect_left, insort

OFF = 1 << 31
SH = 32
LOW = (1 << SH) - 1


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    keys = sorted(
        [(int(a) + OFF) << SH | (int(b) + OFF) for a, b in zip(data[1 : 2 * n + 1 : 2], data[2 : 2 * n + 2 : 2])]
    )
    xs = [k >> SH for k in keys]
    ys = [k & LOW for k in keys]
    best = 1 << 70
    d = 1 << 35  # integer bound: every candidate pair has |dx|, |dy| <= d
    active = []  # y << 32 | x, sorted
    left = 0
    for i in range(n):
        x, y = xs[i], ys[i]
        while x - xs[left] > d:
            del active[bisect_left(active, ys[left] << SH | xs[left])]
            left += 1
        k = bisect_left(active, (y - d) << SH)
        hi = (y + d + 1) << SH
        size = len(active)
        while k < size:
            a = active[k]
            if a >= hi:
                break
            dx = x - (a & LOW)
            dy = y - (a >> SH)
            dd = dx * dx + dy * dy
            if dd < best:
                best = dd
                d = math.isqrt(dd) + 1
            k += 1
        insort(active, y << SH | x)
    print(f"{math.sqrt(best):.6f}")


main()
