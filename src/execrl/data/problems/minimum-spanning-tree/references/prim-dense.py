# O(n^2 + m): Prim on an adjacency matrix (cheapest parallel edge kept), linear scan for the
# next vertex each step.
import sys


def main():
    readline = sys.stdin.readline
    n, m = map(int, readline().split())
    INF = float("inf")
    mat = [[INF] * n for _ in range(n)]
    for _ in range(m):
        u, v, w = map(int, readline().split())
        u -= 1
        v -= 1
        if u != v and w < mat[u][v]:
            mat[u][v] = w
            mat[v][u] = w
    in_tree = [False] * n
    dist = [INF] * n
    dist[0] = 0
    total = 0
    for _ in range(n):
        best, u = INF, -1
        for i in range(n):
            if not in_tree[i] and dist[i] < best:
                best, u = dist[i], i
        if u < 0:
            print(-1)
            return
        in_tree[u] = True
        total += best
        row = mat[u]
        for i in range(n):
            if not in_tree[i] and row[i] < dist[i]:
                dist[i] = row[i]
    print(total)


main()
