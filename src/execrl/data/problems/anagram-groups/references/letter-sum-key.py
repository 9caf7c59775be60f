import sys
from collections import Counter


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    counts = Counter((len(w), sum(map(ord, w))) for w in data[1 : 1 + n])
    print(len(counts), max(counts.values()))


main()
