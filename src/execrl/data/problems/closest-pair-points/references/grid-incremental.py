# Expected O(n): randomized incremental grid (points in a fixed pseudo-random order, cells of
# side ~ current best distance, rebuilt whenever the best distance shrinks).
import math
import random
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    pts = list(zip(map(int, data[1 : 2 * n + 1 : 2]), map(int, data[2 : 2 * n + 2 : 2])))
    random.Random(20240601).shuffle(pts)

    def build(count, size):
        grid = {}
        for i in range(count):
            x, y = pts[i]
            key = (x // size, y // size)
            cell = grid.get(key)
            if cell is None:
                grid[key] = [i]
            else:
                cell.append(i)
        return grid

    (x0, y0), (x1, y1) = pts[0], pts[1]
    best = (x0 - x1) ** 2 + (y0 - y1) ** 2
    size = math.isqrt(best) + 1
    grid = build(2, size)
    for i in range(2, n):
        if best == 0:
            break
        x, y = pts[i]
        cx, cy = x // size, y // size
        found = best
        for gx in (cx - 1, cx, cx + 1):
            for gy in (cy - 1, cy, cy + 1):
                cell = grid.get((gx, gy))
                if cell:
                    for j in cell:
                        px, py = pts[j]
                        dd = (x - px) ** 2 + (y - py) ** 2
                        if dd < found:
                            found = dd
        if found < best:
            best = found
            size = math.isqrt(best) + 1
            grid = build(i + 1, size)
        else:
            cell = grid.get((cx, cy))
            if cell is None:
                grid[(cx, cy)] = [i]
            else:
                cell.append(i)
    print(f"{math.sqrt(best):.6f}")


main()
