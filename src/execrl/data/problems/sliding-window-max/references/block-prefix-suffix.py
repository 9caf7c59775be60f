import sys
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2 : 2 + n]))
    # cut a into blocks of k: a window [i, i+k) covers the suffix of one block and the
    # prefix of the next, so its maximum is max(suffix_max[i], prefix_max[i+k-1])
    prefix = []
    suffix = []
    for lo in range(0, n, k):
        block = a[lo : lo + k]
        prefix += accumulate(block, max)
        suffix += reversed(list(accumulate(reversed(block), max)))
    answer = map(max, suffix[: n - k + 1], prefix[k - 1 :])
    sys.stdout.write(" ".join(map(str, answer)) + "\n")


main()
