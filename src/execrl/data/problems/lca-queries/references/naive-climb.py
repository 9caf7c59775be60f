n = int(input())
parent = [0, 0] + list(map(int, input().split()))
children = [[] for _ in range(n + 1)]
for v in range(2, n + 1):
    children[parent[v]].append(v)
depth = [0] * (n + 1)
order = [1]
for v in order:  # BFS from the root; order grows while we walk it
    for w in children[v]:
        depth[w] = depth[v] + 1
        order.append(w)

q = int(input())
for _ in range(q):
    u, v = map(int, input().split())
    while depth[u] > depth[v]:
        u = parent[u]
    while depth[v] > depth[u]:
        v = parent[v]
    while u != v:
        u = parent[u]
        v = parent[v]
    print(u)
