# Compare the exact averages of all windows as fractions (no rounding anywhere).
from fractions import Fraction

n, k = map(int, input().split())
a = list(map(int, input().split()))
s = sum(a[:k])
best = Fraction(s, k)
for i in range(k, n):
    s += a[i] - a[i - k]
    avg = Fraction(s, k)
    if avg > best:
        best = avg
print(f"{float(best):.6f}")
