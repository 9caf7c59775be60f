import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    parent = list(range(n + 1))
    size = [1] * (n + 1)
    components = n
    ends = list(map(int, data[2 : 2 + 2 * m]))
    for i in range(0, 2 * m, 2):
        a = ends[i]
        root_a = a
        while parent[root_a] != root_a:
            root_a = parent[root_a]
        while parent[a] != root_a:  # full path compression
            parent[a], a = root_a, parent[a]
        b = ends[i + 1]
        root_b = b
        while parent[root_b] != root_b:
            root_b = parent[root_b]
        while parent[b] != root_b:
            parent[b], b = root_b, parent[b]
        if root_a != root_b:
            if size[root_a] < size[root_b]:
                root_a, root_b = root_b, root_a
            parent[root_b] = root_a
            size[root_a] += size[root_b]
            components -= 1
    sys.stdout.write(f"{components}\n")


main()
