from collections import deque


def main():
    r, c = map(int, input().split())
    grid = [input().strip() for _ in range(r)]
    for y in range(r):
        for x in range(c):
            if grid[y][x] == "S":
                start = (y, x)
            elif grid[y][x] == "T":
                target = (y, x)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        y, x = queue.popleft()
        if (y, x) == target:
            break
        for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
            if 0 <= ny < r and 0 <= nx < r and grid[ny][nx] != "#" and (ny, nx) not in dist:
                dist[(ny, nx)] = dist[(y, x)] + 1
                queue.append((ny, nx))
    print(dist.get(target, -1))


main()
