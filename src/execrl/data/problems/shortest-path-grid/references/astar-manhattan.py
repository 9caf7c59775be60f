import heapq
import sys


def main():
    lines = sys.stdin.read().split()
    r, c = int(lines[0]), int(lines[1])
    grid = lines[2 : 2 + r]
    for y, row in enumerate(grid):
        if "S" in row:
            sy, sx = y, row.index("S")
        if "T" in row:
            ty, tx = y, row.index("T")
    # A* with the Manhattan distance: admissible and consistent on a 4-connected grid.
    g = [[-1] * c for _ in range(r)]
    g[sy][sx] = 0
    heap = [(abs(sy - ty) + abs(sx - tx), 0, sy, sx)]
    closed = [[False] * c for _ in range(r)]
    while heap:
        f, d, y, x = heapq.heappop(heap)
        if closed[y][x]:
            continue
        closed[y][x] = True
        if y == ty and x == tx:
            print(d)
            return
        for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
            if 0 <= ny < r and 0 <= nx < c and grid[ny][nx] != "#" and not closed[ny][nx]:
                if g[ny][nx] == -1 or d + 1 < g[ny][nx]:
                    g[ny][nx] = d + 1
                    heapq.heappush(heap, (d + 1 + abs(ny - ty) + abs(nx - tx), d + 1, ny, nx))
    print(-1)


main()
