import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    graph = [[] for _ in range(n + 1)]
    it = iter(map(int, data[2 : 2 + 3 * m]))
    for u, v, w in zip(it, it, it):
        graph[u].append((v, w))
    INF = float("inf")
    dist = [INF] * (n + 1)
    dist[1] = 0
    # O(n^2) Dijkstra with the minimum found by the builtin min over a dict of tentative
    # distances of the reached, unfinished vertices.
    tentative = {1: 0}
    while tentative:
        u = min(tentative, key=tentative.__getitem__)
        d = tentative.pop(u)
        for v, w in graph[u]:
            nd = d + w
            if nd < dist[v]:
                dist[v] = nd
                tentative[v] = nd
    print(" ".join(str(d) if d < INF else "-1" for d in dist[1:]))


main()
