# O(n + q): itertools.accumulate prefix sums, whole input read at once, one write.
import sys
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    pre = [0]
    pre.extend(accumulate(map(int, data[2 : 2 + n])))
    ls = map(int, data[2 + n :: 2])
    rs = map(int, data[3 + n :: 2])
    out = [pre[r] - pre[l - 1] for l, r in zip(ls, rs)]
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
