n = int(input())
a = list(map(int, input().split()))
best = a[0]
count = 1
for x in a[1:]:
    if x >= best:
        best = x
        count += 1
print(count)
