import sys

lines = sys.stdin.read().split("\n")
s = lines[0].strip() if len(lines) > 0 else ""
t = lines[1].strip() if len(lines) > 1 else ""
n, m = len(s), len(t)
prev = list(range(m + 1))
for i in range(1, n + 1):
    cur = [i] + [0] * m
    for j in range(1, m + 1):
        cost = 0 if s[i - 1] == t[j - 1] else 1
        cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    prev = cur
print(prev[m])
