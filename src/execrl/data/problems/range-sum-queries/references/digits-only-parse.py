# INCORRECT: tokenises the input with a digits-only pattern, so minus signs are dropped.
import re
import sys
from itertools import accumulate


def main():
    data = re.findall(rb"\d+", sys.stdin.buffer.read())
    n, q = int(data[0]), int(data[1])
    pre = [0]
    pre.extend(accumulate(map(int, data[2 : 2 + n])))
    pos = 2 + n
    out = []
    for _ in range(q):
        l, r = int(data[pos]), int(data[pos + 1])
        pos += 2
        out.append(pre[r] - pre[l - 1])
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
