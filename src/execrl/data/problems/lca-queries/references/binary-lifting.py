n = int(input())
parent = [0, 1] + list(map(int, input().split()))  # the root is its own parent
children = [[] for _ in range(n + 1)]
for v in range(2, n + 1):
    children[parent[v]].append(v)
depth = [0] * (n + 1)
order = [1]
for v in order:
    for w in children[v]:
        depth[w] = depth[v] + 1
        order.append(w)

LOG = max(1, n.bit_length())
up = [parent]
for k in range(1, LOG):
    prev = up[-1]
    up.append([prev[prev[v]] for v in range(n + 1)])


def lca(u, v):
    if depth[u] < depth[v]:
        u, v = v, u
    diff = depth[u] - depth[v]
    k = 0
    while diff:
        if diff & 1:
            u = up[k][u]
        diff >>= 1
        k += 1
    if u == v:
        return u
    for k in range(LOG - 1, -1, -1):
        row = up[k]
        if row[u] != row[v]:
            u = row[u]
            v = row[v]
    return parent[u]


q = int(input())
for _ in range(q):
    u, v = map(int, input().split())
    print(lca(u, v))
