# O(n log n) in pure Python: hand-written merge sort of the intervals by left end, then merge.
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
        if left[i][0] <= right[j][0]:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    out.extend(left[i:])
    out.extend(right[j:])
    return out


def main():
    n = int(input())
    intervals = merge_sort([tuple(map(int, input().split())) for _ in range(n)])
    cur_l, cur_r = intervals[0]
    total = 0
    for l, r in intervals:
        if l > cur_r:
            total += cur_r - cur_l
            cur_l, cur_r = l, r
        elif r > cur_r:
            cur_r = r
    print(total + cur_r - cur_l)


main()
