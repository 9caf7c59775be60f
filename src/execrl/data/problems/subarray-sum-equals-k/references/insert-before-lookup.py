n, k = map(int, input().split())
a = list(map(int, input().split()))
count = {0: 1}
prefix = 0
total = 0
for x in a:
    prefix += x
    count[prefix] = count.get(prefix, 0) + 1
    total += count.get(prefix - k, 0)
print(total)
