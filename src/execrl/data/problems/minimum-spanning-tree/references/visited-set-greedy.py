# INCORRECT: Kruskal without union-find: an edge is skipped when both endpoints were already
# touched by a chosen edge. Two separate fragments can then never be joined.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    edges = sorted(
        (int(data[4 + 3 * i]), int(data[2 + 3 * i]), int(data[3 + 3 * i])) for i in range(m)
    )
    touched = [False] * (n + 1)
    total = 0
    joined = 0
    for w, u, v in edges:
        if u == v or (touched[u] and touched[v]):
            continue
        touched[u] = touched[v] = True
        total += w
        joined += 1
    print(total if joined == n - 1 else -1)


main()
