import sys
from bisect import bisect_right
from itertools import repeat

LEAF = 64


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1 : 1 + n]))
    total = 0
    # leaves: sorted runs of up to LEAF values, inversions inside counted by insertion
    runs = []
    for lo in range(0, n, LEAF):
        run = []
        for x in a[lo : lo + LEAF]:
            p = bisect_right(run, x)
            total += len(run) - p
            run.insert(p, x)
        runs.append(run)
    # merge neighbouring runs level by level: for every value of the right run, the values
    # of the left run greater than it are counted by bisect, and sorted() merges the two
    # runs; both at C speed
    while len(runs) > 1:
        merged = []
        for i in range(0, len(runs) - 1, 2):
            left, right = runs[i], runs[i + 1]
            total += len(left) * len(right) - sum(map(bisect_right, repeat(left), right))
            merged.append(sorted(left + right))
        if len(runs) % 2:
            merged.append(runs[-1])
        runs = merged
    sys.stdout.write(f"{total}\n")


main()
