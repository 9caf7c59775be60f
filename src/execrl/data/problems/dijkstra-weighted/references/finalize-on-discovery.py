import heapq
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    adj = [[] for _ in range(n + 1)]
    for i in range(m):
        u, v, w = int(data[2 + 3 * i]), int(data[3 + 3 * i]), int(data[4 + 3 * i])
        adj[u].append((v, w))
    dist = [-1] * (n + 1)
    dist[1] = 0
    heap = [(0, 1)]
    while heap:
        d, u = heapq.heappop(heap)
        for v, w in adj[u]:
            if dist[v] == -1:  # first time we see v: its distance is settled
                dist[v] = d + w
                heapq.heappush(heap, (d + w, v))
    print(" ".join(map(str, dist[1:])))


main()
