# INCORRECT: marks values in a fixed table of 10^6 slots indexed by x mod 10^6, assuming
# values are small; distinct values with equal residues are merged.
import sys

SLOTS = 10**6


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    seen = bytearray(SLOTS)
    count = 0
    for tok in data[1 : 1 + n]:
        h = int(tok) % SLOTS
        if not seen[h]:
            seen[h] = 1
            count += 1
    print(count)


main()
