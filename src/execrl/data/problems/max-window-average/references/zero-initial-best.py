n, k = map(int, input().split())
a = list(map(int, input().split()))
best = 0
s = 0
for i in range(n):
    s += a[i]
    if i >= k:
        s -= a[i - k]
    if i >= k - 1 and s > best:
        best = s
print(f"{best / k:.6f}")
