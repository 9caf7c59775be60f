# INCORRECT (wrong algorithm): sorts by x and compares each point only with the next three
# in x order; exact for n <= 4 and for well-spread points, wrong when the closest pair is far
# apart in x order (e.g. points on a narrow vertical band).
import math
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    pts = sorted(zip(map(int, data[1 : 2 * n + 1 : 2]), map(int, data[2 : 2 * n + 2 : 2])))
    best = 1 << 70
    for i in range(n):
        xi, yi = pts[i]
        for j in range(i + 1, min(i + 4, n)):
            dx = xi - pts[j][0]
            dy = yi - pts[j][1]
            best = min(best, dx * dx + dy * dy)
    print(f"{math.sqrt(best):.6f}")


main()
