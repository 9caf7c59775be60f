# O(n log n) with C-level sorts only: coverage depends only on the sorted starts and the
# sorted ends, so sort them separately; the union is [s_1, e_n] minus the gaps s_{i+1} - e_i.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    starts = sorted(map(int, data[1 : 2 * n + 1 : 2]))
    ends = sorted(map(int, data[2 : 2 * n + 2 : 2]))
    gaps = sum(s - e for e, s in zip(ends, starts[1:]) if s > e)
    print(ends[-1] - starts[0] - gaps)


main()
