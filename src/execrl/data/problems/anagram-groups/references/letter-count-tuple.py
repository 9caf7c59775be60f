LETTERS = "abcdefghijklmnopqrstuvwxyz"

n = int(input())
groups = {}
for _ in range(n):
    word = input().strip()
    key = tuple(word.count(ch) for ch in LETTERS)
    groups[key] = groups.get(key, 0) + 1
print(len(groups), max(groups.values()))
