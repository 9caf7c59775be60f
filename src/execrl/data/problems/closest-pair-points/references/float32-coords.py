# INCORRECT (precision): stores the coordinates in array('f') (32-bit floats) to save memory;
# beyond 2^24 coordinates are rounded, so small distances between far-out points come out wrong.
import math
import sys
from array import array
from bisect import bisect_left, insort


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    xs = array("f", map(float, data[1 : 2 * n + 1 : 2]))
    ys = array("f", map(float, data[2 : 2 * n + 2 : 2]))
    pts = sorted(zip(xs, ys))
    best = math.inf
    active = []
    left = 0
    for x, y in pts:
        while x - pts[left][0] > best:
            lx, ly = pts[left]
            del active[bisect_left(active, (ly, lx))]
            left += 1
        k = bisect_left(active, (y - best,))
        while k < len(active):
            ay, ax = active[k]
            if ay > y + best:
                break
            best = min(best, math.hypot(x - ax, y - ay))
            k += 1
        insort(active, (y, x))
    print(f"{best:.6f}")


main()
