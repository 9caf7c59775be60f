n, k = map(int, input().split())
a = list(map(int, input().split()))
count = {}
prefix = 0
total = 0
for x in a:
    prefix += x
    total += count.get(prefix - k, 0)
    count[prefix] = count.get(prefix, 0) + 1
print(total)
