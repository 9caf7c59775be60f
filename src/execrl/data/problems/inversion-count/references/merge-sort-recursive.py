import sys


def sort_count(a):
    # returns (sorted copy of a, number of inversions in a)
    n = len(a)
    if n <= 1:
        return a, 0
    mid = n // 2
    left, x = sort_count(a[:mid])
    right, y = sort_count(a[mid:])
    total = x + y
    merged = []
    i = j = 0
    while i < len(left) and j < len(right):
        if right[j] < left[i]:
            merged.append(right[j])
            total += len(left) - i  # right[j] is smaller than every remaining left value
            j += 1
        else:
            merged.append(left[i])
            i += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged, total


def main():
    n = int(input())
    a = list(map(int, input().split()))
    print(sort_count(a)[1])


sys.setrecursionlimit(10000)
main()
