import heapq
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    adj = [[] for _ in range(n + 1)]
    for i in range(m):
        u, v, w = int(data[2 + 3 * i]), int(data[3 + 3 * i]), int(data[4 + 3 * i])
        adj[u].append((v, w))
    dist = [0] * (n + 1)  # 0 = not reached yet
    done = [False] * (n + 1)
    heap = [(0, 1)]
    while heap:
        d, u = heapq.heappop(heap)
        if done[u]:
            continue
        done[u] = True
        for v, w in adj[u]:
            if v != 1 and (dist[v] == 0 or d + w < dist[v]):
                dist[v] = d + w
                heapq.heappush(heap, (d + w, v))
    print(" ".join(["0"] + [str(d) if d else "-1" for d in dist[2:]]))


main()
