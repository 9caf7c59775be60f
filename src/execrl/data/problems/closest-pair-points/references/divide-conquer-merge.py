# O(n log n) divide and conquer: recursion on x-sorted halves returns each half sorted by y
# (merged by hand), then the strip around the split line is scanned in y order. input() per line.
import math


def main():
    n = int(input())
    pts = sorted(tuple(map(int, input().split())) for _ in range(n))

    def solve(lo, hi):
        if hi - lo <= 3:
            best = 1 << 70
            for i in range(lo, hi):
                xi, yi = pts[i]
                for j in range(i + 1, hi):
                    dx = xi - pts[j][0]
                    dy = yi - pts[j][1]
                    dd = dx * dx + dy * dy
                    if dd < best:
                        best = dd
            return best, sorted(pts[lo:hi], key=lambda p: p[1])
        mid = (lo + hi) // 2
        mid_x = pts[mid][0]
        best_l, left = solve(lo, mid)
        best_r, right = solve(mid, hi)
        best = min(best_l, best_r)
        merged = []
        i = j = 0
        nl, nr = len(left), len(right)
        while i < nl and j < nr:
            if left[i][1] <= right[j][1]:
                merged.append(left[i])
                i += 1
            else:
                merged.append(right[j])
                j += 1
        merged.extend(left[i:])
        merged.extend(right[j:])
        strip = [p for p in merged if (p[0] - mid_x) ** 2 < best]
        for a in range(len(strip)):
            xa, ya = strip[a]
            for b in range(a + 1, len(strip)):
                xb, yb = strip[b]
                dy = yb - ya
                if dy * dy >= best:
                    break
                dx = xb - xa
                dd = dx * dx + dy * dy
                if dd < best:
                    best = dd
        return best, merged

    print(f"{math.sqrt(solve(0, n)[0]):.6f}")


main()
