import sys
from bisect import bisect_left


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    tails = [-1]  # sentinel "minus infinity" below every value
    for x in map(int, data[1 : 1 + n]):
        i = bisect_left(tails, x)
        if i == len(tails):
            tails.append(x)
        else:
            tails[i] = x
    sys.stdout.write(f"{len(tails) - 1}\n")


main()
