import sys
from collections import deque


def main():
    data = sys.stdin.read().split()
    r, c = int(data[0]), int(data[1])
    cells = "".join(data[2 : 2 + r])  # row-major, one index per cell
    n = r * c
    start, target = cells.index("S"), cells.index("T")
    dist = [-1] * n
    dist[start] = 0
    queue = deque([start])
    while queue:
        v = queue.popleft()
        if v == target:
            break
        for u in (v - 1, v + 1, v - c, v + c):
            if 0 <= u < n and cells[u] != "#" and dist[u] == -1:
                dist[u] = dist[v] + 1
                queue.append(u)
    print(dist[target])


main()
