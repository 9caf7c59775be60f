import sys
from bisect import bisect_right
from itertools import repeat


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1 : 1 + n]))
    total = 0
    width = 1
    while width < n:
        # merge a[lo:lo+width] with a[lo+width:lo+2*width] for every pair of blocks
        for lo in range(0, n - 2 * width + 1, 2 * width):
            left = a[lo : lo + width]
            right = a[lo + width : lo + 2 * width]
            total += len(left) * len(right) - sum(map(bisect_right, repeat(left), right))
            a[lo : lo + 2 * width] = sorted(left + right)
        width *= 2
    sys.stdout.write(f"{total}\n")


main()
