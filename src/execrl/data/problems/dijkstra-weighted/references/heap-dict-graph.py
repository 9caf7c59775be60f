import heapq
import sys
from collections import defaultdict


def main():
    tokens = sys.stdin.read().split()
    n, m = int(tokens[0]), int(tokens[1])
    graph = defaultdict(list)
    for i in range(m):
        u = int(tokens[2 + 3 * i])
        v = int(tokens[3 + 3 * i])
        w = int(tokens[4 + 3 * i])
        graph[u].append((w, v))
    dist = {}  # final distances
    heap = [(0, 1)]
    while heap:
        d, u = heapq.heappop(heap)
        if u in dist:
            continue
        dist[u] = d
        for w, v in graph[u]:
            if v not in dist:
                heapq.heappush(heap, (d + w, v))
    print(" ".join(str(dist.get(v, -1)) for v in range(1, n + 1)))


main()
