# INCORRECT: starts the merge from a sentinel block [0, 0], assuming coordinates are
# non-negative; an interval reaching below 0 is merged into the sentinel and clipped at 0.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    vals = list(map(int, data[1 : 2 * n + 1]))
    intervals = sorted(zip(vals[0::2], vals[1::2]))
    cur_l, cur_r = 0, 0
    total = 0
    for l, r in intervals:
        if l > cur_r:
            total += cur_r - cur_l
            cur_l, cur_r = l, r
        elif r > cur_r:
            cur_r = r
    print(total + cur_r - cur_l)


main()
