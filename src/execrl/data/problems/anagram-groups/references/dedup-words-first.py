import sys
from collections import Counter


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    words = set(data[1 : 1 + n])
    counts = Counter("".join(sorted(w)) for w in words)
    print(len(counts), max(counts.values()))


main()
