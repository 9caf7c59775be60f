import sys

sys.setrecursionlimit(20000)

n, m = map(int, input().split())
parent = list(range(n + 1))


def find(x):
    if parent[x] != x:
        parent[x] = find(parent[x])
    return parent[x]


def union(a, b):
    ra, rb = find(a), find(b)
    if ra == rb:
        return False
    parent[ra] = rb
    return True


components = n
for _ in range(m):
    u, v = map(int, input().split())
    if union(u, v):
        components -= 1
print(components)
