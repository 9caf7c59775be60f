import sys
from itertools import accumulate
from operator import sub

MAX_LEN = 32


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    prefix = list(accumulate(map(int, data[1 : 1 + n]), initial=0))
    # try every window of length 1..MAX_LEN: the best subarray is assumed to be short
    best = max(
        max(map(sub, prefix[length:], prefix[:-length]))
        for length in range(1, min(n, MAX_LEN) + 1)
    )
    sys.stdout.write(f"{best}\n")


main()
