import heapq
import sys


def main():
    lines = sys.stdin.read().split()
    r, c = int(lines[0]), int(lines[1])
    grid = lines[2 : 2 + r]
    start = target = None
    for y, row in enumerate(grid):
        if "S" in row:
            start = (y, row.index("S"))
        if "T" in row:
            target = (y, row.index("T"))
    best = {start: 0}
    heap = [(0, start)]
    answer = -1
    while heap:
        d, (y, x) = heapq.heappop(heap)
        if d > best[(y, x)]:
            continue
        if (y, x) == target:
            answer = d
            break
        for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
            if 0 <= ny < r and 0 <= nx < c and grid[ny][nx] != "#":
                nd = d + 1
                if nd < best.get((ny, nx), float("inf")):
                    best[(ny, nx)] = nd
                    heapq.heappush(heap, (nd, (ny, nx)))
    print(answer)


main()
