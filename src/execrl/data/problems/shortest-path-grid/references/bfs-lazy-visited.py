import sys
from collections import deque


def main():
    lines = sys.stdin.read().split()
    r, c = int(lines[0]), int(lines[1])
    grid = lines[2 : 2 + r]
    for y, row in enumerate(grid):
        if "S" in row:
            start = (y, row.index("S"))
        if "T" in row:
            target = (y, row.index("T"))
    # Cells are marked when they are taken out of the queue, so a cell can be queued
    # once per neighbour; the first time it comes out carries its shortest distance.
    seen = set()
    queue = deque([(start, 0)])
    answer = -1
    while queue:
        cell, d = queue.popleft()
        if cell in seen:
            continue
        seen.add(cell)
        if cell == target:
            answer = d
            break
        y, x = cell
        for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
            if 0 <= ny < r and 0 <= nx < c and grid[ny][nx] != "#" and (ny, nx) not in seen:
                queue.append(((ny, nx), d + 1))
    print(answer)


main()
