n = int(input())
a = list(map(int, input().split()))
best = a[0]
count = 1
for i in range(1, n - 1):
    if a[i] > best:
        best = a[i]
        count += 1
print(count)
