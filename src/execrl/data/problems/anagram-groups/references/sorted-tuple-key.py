n = int(input())
groups = {}
for _ in range(n):
    key = tuple(sorted(input().strip()))
    groups[key] = groups.get(key, 0) + 1
print(len(groups), max(groups.values()))
