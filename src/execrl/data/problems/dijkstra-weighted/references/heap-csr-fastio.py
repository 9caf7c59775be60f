import sys
from heapq import heappop, heappush


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    us = list(map(int, data[2 : 2 + 3 * m : 3]))
    vs = list(map(int, data[3 : 3 + 3 * m : 3]))
    ws = list(map(int, data[4 : 4 + 3 * m : 3]))
    # compressed adjacency (CSR): the edges of u are order[start[u]:start[u + 1]]
    start = [0] * (n + 2)
    for u in us:
        start[u + 1] += 1
    for i in range(1, n + 2):
        start[i] += start[i - 1]
    fill = start[:]
    head = [0] * m
    cost = [0] * m
    for u, v, w in zip(us, vs, ws):
        k = fill[u]
        head[k] = v
        cost[k] = w
        fill[u] = k + 1
    inf = float("inf")
    dist = [inf] * (n + 1)
    dist[1] = 0
    heap = [(0, 1)]
    while heap:
        d, u = heappop(heap)
        if d != dist[u]:
            continue
        for k in range(start[u], start[u + 1]):
            nd = d + cost[k]
            v = head[k]
            if nd < dist[v]:
                dist[v] = nd
                heappush(heap, (nd, v))
    sys.stdout.write(" ".join(str(d) if d != inf else "-1" for d in dist[1:]) + "\n")


main()
