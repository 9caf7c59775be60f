# O(m log m): Kruskal over sorted (w, u, v) tuples, union-find with path compression.
import sys


def main():
    readline = sys.stdin.readline
    n, m = map(int, readline().split())
    edges = []
    for _ in range(m):
        u, v, w = map(int, readline().split())
        edges.append((w, u, v))
    edges.sort()
    parent = list(range(n + 1))

    def find(x):
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    total = 0
    joined = 0
    for w, u, v in edges:
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[ru] = rv
            total += w
            joined += 1
            if joined == n - 1:
                break
    print(total if joined == n - 1 else -1)


main()
