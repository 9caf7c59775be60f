from collections import defaultdict

n = int(input())
groups = defaultdict(list)
for _ in range(n):
    word = input().strip()
    groups["".join(sorted(word))].append(word)
print(len(groups), max(len(g) for g in groups.values()))
