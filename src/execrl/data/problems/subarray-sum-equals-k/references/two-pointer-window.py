# Sliding window: grow on the right, shrink from the left while the sum is too large.
n, k = map(int, input().split())
a = list(map(int, input().split()))
left = 0
s = 0
total = 0
for right in range(n):
    s += a[right]
    while s > k and left <= right:
        s -= a[left]
        left += 1
    if s == k and left <= right:
        total += 1
print(total)
