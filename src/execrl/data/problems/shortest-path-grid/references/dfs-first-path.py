def main():
    r, c = map(int, input().split())
    grid = [input().strip() for _ in range(r)]
    for y in range(r):
        for x in range(c):
            if grid[y][x] == "S":
                start = (y, x)
            elif grid[y][x] == "T":
                target = (y, x)
    # Depth-first search; a cell's distance is fixed when it is first discovered.
    dist = {start: 0}
    stack = [start]
    while stack:
        y, x = stack.pop()
        if (y, x) == target:
            break
        for ny, nx in ((y - 1, x), (y, x - 1), (y + 1, x), (y, x + 1)):
            if 0 <= ny < r and 0 <= nx < c and grid[ny][nx] != "#" and (ny, nx) not in dist:
                dist[(ny, nx)] = dist[(y, x)] + 1
                stack.append((ny, nx))
    print(dist.get(target, -1))


main()
