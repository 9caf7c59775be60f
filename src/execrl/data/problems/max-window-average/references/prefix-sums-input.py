n, k = map(int, input().split())
a = list(map(int, input().split()))
prefix = [0] * (n + 1)
for i in range(n):
    prefix[i + 1] = prefix[i] + a[i]
best = prefix[k] - prefix[0]
for i in range(1, n - k + 1):
    s = prefix[i + k] - prefix[i]
    if s > best:
        best = s
print("%.6f" % (best / k))
