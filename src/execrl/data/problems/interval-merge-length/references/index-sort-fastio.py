# O(n log n): sort interval indices by left end (key lookup, no tuples), then merge.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    ls = list(map(int, data[1 : 2 * n + 1 : 2]))
    rs = list(map(int, data[2 : 2 * n + 2 : 2]))
    order = sorted(range(n), key=ls.__getitem__)
    first = order[0]
    cur_l, cur_r = ls[first], rs[first]
    total = 0
    for i in order:
        l = ls[i]
        if l > cur_r:
            total += cur_r - cur_l
            cur_l, cur_r = l, rs[i]
        elif rs[i] > cur_r:
            cur_r = rs[i]
    print(total + cur_r - cur_l)


main()
