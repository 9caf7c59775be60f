# INCORRECT (edge case): removes repeated points with a set before the sweep, so two equal
# points (answer 0) are lost and the distance between distinct points is printed instead.
import math
import sys
from bisect import bisect_left, insort


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    pts = sorted(set(zip(map(int, data[1 : 2 * n + 1 : 2]), map(int, data[2 : 2 * n + 2 : 2]))))
    best = 1 << 70
    d = 1 << 35
    active = []
    left = 0
    for x, y in pts:
        while x - pts[left][0] > d:
            lx, ly = pts[left]
            del active[bisect_left(active, (ly, lx))]
            left += 1
        k = bisect_left(active, (y - d,))
        while k < len(active):
            ay, ax = active[k]
            if ay > y + d:
                break
            dd = (x - ax) ** 2 + (y - ay) ** 2
            if dd < best:
                best = dd
                d = math.isqrt(dd) + 1
            k += 1
        insort(active, (y, x))
    print(f"{math.sqrt(best):.6f}")


main()
