import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    best = cur = int(data[1])
    for x in map(int, data[2 : 1 + n]):
        # extend the run ending here, or restart at x when the run so far is not positive
        if cur > 0:
            cur += x
        else:
            cur = x
        if cur > best:
            best = cur
    sys.stdout.write(f"{best}\n")


main()
