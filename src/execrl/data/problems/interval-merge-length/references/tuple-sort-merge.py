# O(n log n): read (l, r) tuples with input(), sort them, merge overlapping ones.
def main():
    n = int(input())
    intervals = [tuple(map(int, input().split())) for _ in range(n)]
    intervals.sort()
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
