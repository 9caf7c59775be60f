import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2 : 2 + n]))
    prefix = [0] * n
    suffix = [0] * n
    for lo in range(0, n, k):
        hi = min(lo + k, n)
        cur = 0  # running maximum of the block
        for i in range(lo, hi):
            if a[i] > cur:
                cur = a[i]
            prefix[i] = cur
        cur = 0
        for i in range(hi - 1, lo - 1, -1):
            if a[i] > cur:
                cur = a[i]
            suffix[i] = cur
    out = [max(suffix[i], prefix[i + k - 1]) for i in range(n - k + 1)]
    sys.stdout.write(" ".join(map(str, out)) + "\n")


main()
