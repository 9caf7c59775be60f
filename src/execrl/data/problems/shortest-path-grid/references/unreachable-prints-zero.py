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
    dist = [[0] * c for _ in range(r)]
    visited = [[False] * c for _ in range(r)]
    visited[start[0]][start[1]] = True
    queue = deque([start])
    while queue:
        y, x = queue.popleft()
        for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
            if 0 <= ny < r and 0 <= nx < c and grid[ny][nx] != "#" and not visited[ny][nx]:
                visited[ny][nx] = True
                dist[ny][nx] = dist[y][x] + 1
                queue.append((ny, nx))
    print(dist[target[0]][target[1]])


main()
