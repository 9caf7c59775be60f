import sys
from bisect import bisect_left


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    tails = []  # tails[k] = smallest possible last value of an increasing run of length k+1
    append = tails.append
    for x in map(int, data[1 : 1 + n]):
        i = bisect_left(tails, x)
        if i == len(tails):
            append(x)
        else:
            tails[i] = x
    sys.stdout.write(f"{len(tails)}\n")


main()
