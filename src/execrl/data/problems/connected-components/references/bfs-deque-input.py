from collections import deque

n, m = map(int, input().split())
adj = [[] for _ in range(n + 1)]
for _ in range(m):
    u, v = map(int, input().split())
    adj[u].append(v)
    adj[v].append(u)

seen = [False] * (n + 1)
components = 0
for start in range(1, n + 1):
    if seen[start]:
        continue
    components += 1
    seen[start] = True
    queue = deque([start])
    while queue:
        x = queue.popleft()
        for y in adj[x]:
            if not seen[y]:
                seen[y] = True
                queue.append(y)
print(components)
