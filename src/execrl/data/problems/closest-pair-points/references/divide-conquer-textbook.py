# O(n log^2 n) textbook divide and conquer: slices for the halves, the strip re-sorted by y
# at every level, each strip point compared with the next 7; input() per line.
import math


def closest(pts):
    """Smallest squared distance among pts (sorted by x)."""
    n = len(pts)
    if n <= 3:
        best = 1 << 70
        for i in range(n):
            for j in range(i + 1, n):
                dx = pts[i][0] - pts[j][0]
                dy = pts[i][1] - pts[j][1]
                best = min(best, dx * dx + dy * dy)
        return best
    mid = n // 2
    mid_x = pts[mid][0]
    best = min(closest(pts[:mid]), closest(pts[mid:]))
    strip = sorted([p for p in pts if (p[0] - mid_x) ** 2 < best], key=lambda p: p[1])
    for i in range(len(strip)):
        for j in range(i + 1, min(i + 8, len(strip))):
            dx = strip[i][0] - strip[j][0]
            dy = strip[i][1] - strip[j][1]
            best = min(best, dx * dx + dy * dy)
    return best


def main():
    n = int(input())
    pts = sorted(tuple(map(int, input().split())) for _ in range(n))
    print(f"{math.sqrt(closest(pts)):.6f}")


main()
