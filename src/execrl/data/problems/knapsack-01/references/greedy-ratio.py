# INCORRECT: greedy by value/weight ratio, taking every item that still fits; optimal on
# many small inputs but not in general.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, W = int(data[0]), int(data[1])
    items = [(int(data[2 + 2 * i]), int(data[3 + 2 * i])) for i in range(n)]
    items.sort(key=lambda it: it[1] / it[0], reverse=True)
    room, total = W, 0
    for w, v in items:
        if w <= room:
            room -= w
            total += v
    print(total)


main()
