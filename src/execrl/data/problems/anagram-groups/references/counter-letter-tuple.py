from collections import Counter

LETTERS = "abcdefghijklmnopqrstuvwxyz"

n = int(input())
groups = {}
for _ in range(n):
    counts = Counter(input().strip())
    key = tuple(counts[ch] for ch in LETTERS)
    groups[key] = groups.get(key, 0) + 1
print(len(groups), max(groups.values()))
