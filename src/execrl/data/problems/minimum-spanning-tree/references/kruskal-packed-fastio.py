# O(m log m): each edge packed into one int (weight in the high bits, edge index below), so
# the sort compares plain ints; union-find with path halving, fast I/O.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    us = list(map(int, data[2 : 2 + 3 * m : 3]))
    vs = list(map(int, data[3 : 3 + 3 * m : 3]))
    ws = data[4 : 4 + 3 * m : 3]
    keys = sorted([int(w) << 18 | i for i, w in enumerate(ws)])
    parent = list(range(n + 1))
    total = 0
    joined = 0
    need = n - 1
    mask = (1 << 18) - 1
    for key in keys:
        if joined == need:
            break
        i = key & mask
        a = us[i]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        b = vs[i]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            parent[a] = b
            total += key >> 18
            joined += 1
    print(total if joined == need else -1)


main()
