# O(m log n): Prim with adjacency lists and a binary heap; an entry is pushed only when it
# improves the vertex's best known connection cost (stale entries are skipped when popped).
import heapq
import sys


def main():
    readline = sys.stdin.readline
    n, m = map(int, readline().split())
    adj = [[] for _ in range(n + 1)]
    for _ in range(m):
        u, v, w = map(int, readline().split())
        if u != v:
            adj[u].append((v, w))
            adj[v].append((u, w))
    INF = 1 << 62
    best = [INF] * (n + 1)
    in_tree = [False] * (n + 1)
    best[1] = 0
    heap = [(0, 1)]
    total = 0
    count = 0
    while heap:
        w, u = heapq.heappop(heap)
        if in_tree[u]:
            continue
        in_tree[u] = True
        total += w
        count += 1
        if count == n:
            break
        for v, wv in adj[u]:
            if wv < best[v] and not in_tree[v]:
                best[v] = wv
                heapq.heappush(heap, (wv, v))
    print(total if count == n else -1)


main()
