import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    parent = [0, 0] + [int(x) for x in data[1:n]]
    children = [[] for _ in range(n + 1)]
    for v in range(2, n + 1):
        children[parent[v]].append(v)
    # preorder: every subtree is a contiguous block starting at its root
    order = []
    stack = [1]
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(children[v])
    tin = [0] * (n + 1)
    for i, v in enumerate(order):
        tin[v] = i
    # key[i] = preorder index of the parent of order[i]; for tin[u] < tin[v] the minimum of
    # key over (tin[u], tin[v]] is the preorder index of lca(u, v)
    key = [0] + [tin[parent[v]] for v in order[1:]]
    table = [key]
    span = 1
    while 2 * span <= n:
        prev = table[-1]
        table.append(list(map(min, prev[: n - 2 * span + 1], prev[span:])))
        span *= 2
    q = int(data[n])
    vals = list(map(int, data[n + 1 : n + 1 + 2 * q]))
    out = []
    for i in range(0, 2 * q, 2):
        u, v = vals[i], vals[i + 1]
        if u == v:
            out.append(u)
            continue
        a, b = tin[u], tin[v]
        if a > b:
            a, b = b, a
        a += 1
        k = (b - a + 1).bit_length() - 1
        row = table[k]
        x, y = row[a], row[b - (1 << k) + 1]
        out.append(order[x if x < y else y])
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
