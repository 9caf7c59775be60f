import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1 : 1 + n]))
    prefix = [0] * (n + 1)
    for i, x in enumerate(a):
        prefix[i + 1] = prefix[i] + x
    best = a[0]
    lowest = prefix[1]
    for j in range(2, n + 1):
        # best sum ending at j: prefix[j] minus the smallest earlier prefix
        best = max(best, prefix[j] - lowest, a[j - 1])
        lowest = min(lowest, prefix[j])
    sys.stdout.write(f"{best}\n")


main()
