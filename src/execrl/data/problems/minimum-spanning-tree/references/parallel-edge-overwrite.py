# INCORRECT: de-duplicates parallel edges in a dict keyed by the vertex pair, but keeps the
# last weight read instead of the cheapest one.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    weight = {}
    for i in range(m):
        u, v, w = int(data[2 + 3 * i]), int(data[3 + 3 * i]), int(data[4 + 3 * i])
        if u != v:
            weight[(u, v) if u < v else (v, u)] = w
    edges = sorted((w, u, v) for (u, v), w in weight.items())
    parent = list(range(n + 1))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    total = 0
    joined = 0
    for w, u, v in edges:
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[ru] = rv
            total += w
            joined += 1
    print(total if joined == n - 1 else -1)


main()
