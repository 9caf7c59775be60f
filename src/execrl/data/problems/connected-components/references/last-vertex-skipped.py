import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    ends = list(map(int, data[2 : 2 + 2 * m]))
    adj = [[] for _ in range(n + 1)]
    for i in range(0, 2 * m, 2):
        u, v = ends[i], ends[i + 1]
        adj[u].append(v)
        adj[v].append(u)
    seen = [False] * (n + 1)
    components = 0
    for start in range(1, n):
        if seen[start]:
            continue
        components += 1
        seen[start] = True
        stack = [start]
        while stack:
            x = stack.pop()
            for y in adj[x]:
                if not seen[y]:
                    seen[y] = True
                    stack.append(y)
    print(components)


main()
