# INCORRECT: off-by-one loop bound: the merge loop runs over indices 1 .. n-2, so the interval
# with the largest left end is never merged in.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    vals = list(map(int, data[1 : 2 * n + 1]))
    intervals = sorted(zip(vals[0::2], vals[1::2]))
    cur_l, cur_r = intervals[0]
    total = 0
    for i in range(1, n - 1):
        l, r = intervals[i]
        if l > cur_r:
            total += cur_r - cur_l
            cur_l, cur_r = l, r
        elif r > cur_r:
            cur_r = r
    print(total + cur_r - cur_l)


main()
