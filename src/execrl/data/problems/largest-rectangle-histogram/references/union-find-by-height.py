# Switch bars on from the tallest to the lowest and join each with already active
# neighbours (union-find). When a bar of height x is switched on, every bar in its
# component is at least x tall, so x * component size is a candidate.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    h = list(map(int, data[1 : n + 1]))
    parent = list(range(n))
    size = [1] * n
    active = [False] * n

    def find(x):
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    best = 0
    for i in sorted(range(n), key=h.__getitem__, reverse=True):
        active[i] = True
        root = i
        for j in (i - 1, i + 1):
            if 0 <= j < n and active[j]:
                a, b = find(root), find(j)
                if a != b:
                    if size[a] < size[b]:
                        a, b = b, a
                    parent[b] = a
                    size[a] += size[b]
                    root = a
        area = h[i] * size[find(root)]
        if area > best:
            best = area
    print(best)


main()
