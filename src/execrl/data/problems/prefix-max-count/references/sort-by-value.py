# Visit values from largest to smallest. Within a group of equal values only the
# leftmost index can be visible, and it is visible exactly when every strictly
# larger value sits to its right.
n = int(input())
a = [int(x) for x in input().split()]
order = sorted(range(n), key=lambda i: (-a[i], i))
min_index_larger = n  # smallest index holding a value strictly larger than the group's
count = 0
k = 0
while k < n:
    first = order[k]
    value = a[first]
    if first < min_index_larger:
        count += 1
    k += 1
    while k < n and a[order[k]] == value:
        k += 1
    if first < min_index_larger:
        min_index_larger = first
print(count)
