# Sort the prefix sums P_0..P_n together with their positions; the answer counts pairs
# i < j with P_i = P_j - k, found by binary search inside the group of value P_j - k.
from bisect import bisect_left, bisect_right

n, k = map(int, input().split())
a = list(map(int, input().split()))
prefix = [0] * (n + 1)
for i in range(n):
    prefix[i + 1] = prefix[i] + a[i]
pairs = sorted((p, i) for i, p in enumerate(prefix))
total = 0
for j in range(n + 1):
    want = prefix[j] - k
    lo = bisect_left(pairs, (want, -1))
    hi = bisect_left(pairs, (want, j), lo)
    total += hi - lo
print(total)
