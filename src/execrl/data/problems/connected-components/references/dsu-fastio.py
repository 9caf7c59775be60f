import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    parent = list(range(n + 1))
    components = n
    ends = iter(map(int, data[2 : 2 + 2 * m]))
    for a, b in zip(ends, ends):
        while parent[a] != a:
            parent[a] = a = parent[parent[a]]
        while parent[b] != b:
            parent[b] = b = parent[parent[b]]
        if a != b:
            parent[a] = b
            components -= 1
    sys.stdout.write(f"{components}\n")


main()
