import sys
from collections import Counter


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    cnt = Counter(map(int, data[2 : 2 + n]))
    # every pair is seen from both ends, so halve the sum
    total = sum(c * cnt.get(k - v, 0) for v, c in cnt.items())
    print(total // 2)


main()
