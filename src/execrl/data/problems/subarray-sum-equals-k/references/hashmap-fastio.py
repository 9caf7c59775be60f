import sys
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    seen = {0: 1}  # prefix sum -> how many earlier prefixes have it
    get = seen.get
    total = 0
    for p in accumulate(map(int, data[2 : n + 2])):
        total += get(p - k, 0)
        seen[p] = get(p, 0) + 1
    sys.stdout.write(f"{total}\n")


main()
