# O(n log n) in pure Python: a hand-written top-down merge sort, then a scan for changes.
import sys


def merge_sort(a):
    if len(a) <= 1:
        return a
    mid = len(a) // 2
    left = merge_sort(a[:mid])
    right = merge_sort(a[mid:])
    out = []
    i = j = 0
    nl, nr = len(left), len(right)
    while i < nl and j < nr:
        if left[i] <= right[j]:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    out.extend(left[i:])
    out.extend(right[j:])
    return out


def main():
    n = int(sys.stdin.readline())
    a = merge_sort(list(map(int, sys.stdin.readline().split())))
    count = 1
    for i in range(1, n):
        if a[i] != a[i - 1]:
            count += 1
    print(count)


main()
