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
    dist = [[-1] * c for _ in range(r)]
    dist[start[0]][start[1]] = 0
    queue = deque([start])
    while queue:
        y, x = queue.popleft()
        if (y, x) == target:
            break
        for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            ny, nx = y + dy, x + dx
            if 0 <= ny < r and 0 <= nx < c and grid[ny][nx] != "#" and dist[ny][nx] == -1:
                dist[ny][nx] = dist[y][x] + 1
                queue.append((ny, nx))
    print(dist[target[0]][target[1]])


main()
