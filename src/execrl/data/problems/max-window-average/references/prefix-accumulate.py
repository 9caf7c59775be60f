import sys
from itertools import accumulate
from operator import sub


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    prefix = list(accumulate(map(int, data[2 : n + 2]), initial=0))
    best = max(map(sub, prefix[k:], prefix))  # window sums prefix[i + k] - prefix[i]
    sys.stdout.write(f"{best / k:.6f}\n")


main()
