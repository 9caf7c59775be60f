# INCORRECT: after sorting, the change scan stops one position early and misses a new maximum.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = sorted(map(int, data[1 : 1 + n]))
    count = 1
    for i in range(1, n - 1):
        if a[i] != a[i - 1]:
            count += 1
    print(count)


main()
