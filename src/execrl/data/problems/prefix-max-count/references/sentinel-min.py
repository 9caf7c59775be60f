n = int(input())
a = list(map(int, input().split()))
best = -(10**9)
count = 0
for x in a:
    if x > best:
        best = x
        count += 1
print(count)
