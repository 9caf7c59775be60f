# O(m log m): Kruskal sorting edge indices by weight (no tuples), union by size with path
# halving, whole input read at once.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    us = list(map(int, data[2 : 2 + 3 * m : 3]))
    vs = list(map(int, data[3 : 3 + 3 * m : 3]))
    ws = list(map(int, data[4 : 4 + 3 * m : 3]))
    parent = list(range(n + 1))
    size = [1] * (n + 1)
    total = 0
    joined = 0
    need = n - 1
    for i in sorted(range(m), key=ws.__getitem__):
        if joined == need:
            break
        a = us[i]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        b = vs[i]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            if size[a] < size[b]:
                a, b = b, a
            parent[b] = a
            size[a] += size[b]
            total += ws[i]
            joined += 1
    print(total if joined == need else -1)


main()
