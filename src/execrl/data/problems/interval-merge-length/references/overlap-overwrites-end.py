# INCORRECT: on overlap the merged block's end becomes the new interval's end instead of the
# larger of the two, so an interval nested inside the block cuts it short.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    vals = list(map(int, data[1 : 2 * n + 1]))
    intervals = sorted(zip(vals[0::2], vals[1::2]))
    cur_l, cur_r = intervals[0]
    total = 0
    for l, r in intervals[1:]:
        if l > cur_r:
            total += cur_r - cur_l
            cur_l, cur_r = l, r
        else:
            cur_r = r
    print(total + cur_r - cur_l)


main()
