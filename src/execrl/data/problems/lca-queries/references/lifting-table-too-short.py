import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    parent = [0, 1] + [int(x) for x in data[1:n]]
    children = [[] for _ in range(n + 1)]
    for v in range(2, n + 1):
        children[parent[v]].append(v)
    depth = [0] * (n + 1)
    order = [1]
    for v in order:
        d = depth[v] + 1
        for w in children[v]:
            depth[w] = d
            order.append(w)
    log = max(1, n.bit_length() - 1)
    up = [parent]
    for _ in range(1, log):
        prev = up[-1]
        up.append([prev[p] for p in prev])
    levels = list(range(log - 1, -1, -1))
    q = int(data[n])
    vals = list(map(int, data[n + 1 : n + 1 + 2 * q]))
    out = []
    for i in range(0, 2 * q, 2):
        u, v = vals[i], vals[i + 1]
        if depth[u] < depth[v]:
            u, v = v, u
        diff = depth[u] - depth[v]
        k = 0
        while diff:
            if diff & 1:
                u = up[k][u]
            diff >>= 1
            k += 1
        if u != v:
            for k in levels:
                row = up[k]
                if row[u] != row[v]:
                    u = row[u]
                    v = row[v]
            u = parent[u]
        out.append(u)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
