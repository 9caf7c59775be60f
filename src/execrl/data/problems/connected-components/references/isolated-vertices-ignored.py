import sys
from collections import defaultdict


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    ends = list(map(int, data[2 : 2 + 2 * m]))
    adj = defaultdict(list)
    for i in range(0, 2 * m, 2):
        u, v = ends[i], ends[i + 1]
        adj[u].append(v)
        adj[v].append(u)
    seen = set()
    components = 0
    for start in list(adj):
        if start in seen:
            continue
        components += 1
        seen.add(start)
        stack = [start]
        while stack:
            x = stack.pop()
            for y in adj[x]:
                if y not in seen:
                    seen.add(y)
                    stack.append(y)
    print(components)


main()
