from collections import defaultdict

n, k = map(int, input().split())
a = list(map(int, input().split()))
count = defaultdict(int)
count[0] = 1
prefix = 0
total = 0
for i in range(n):
    prefix += a[i]
    total += count[prefix - k]
    count[prefix] += 1
print(total)
