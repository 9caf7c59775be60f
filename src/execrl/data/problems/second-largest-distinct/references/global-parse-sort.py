import sys
from bisect import bisect_left


def main():
    nums = list(map(int, sys.stdin.buffer.read().split()))
    t = nums[0]
    pos = 1
    out = []
    for _ in range(t):
        n = nums[pos]
        a = nums[pos + 1 : pos + 1 + n]
        pos += 1 + n
        a.sort()
        i = bisect_left(a, a[-1])  # first copy of the maximum
        out.append(a[i - 1] if i else -1)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
