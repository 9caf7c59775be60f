import sys
from collections import Counter


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    counts = Counter(map(bytes, map(sorted, data[1 : 1 + n])))
    sys.stdout.write(f"{len(counts)} {max(counts.values())}\n")


main()
