n, k = map(int, input().split())
a = list(map(int, input().split()))
s = sum(a[:k])
best = s
for i in range(k, n - 1):
    s += a[i] - a[i - k]
    if s > best:
        best = s
print(f"{best / k:.6f}")
