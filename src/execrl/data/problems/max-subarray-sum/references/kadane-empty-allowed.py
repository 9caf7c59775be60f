import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    best = cur = 0
    for x in map(int, data[1 : 1 + n]):
        cur += x
        if cur < 0:
            cur = 0
        if cur > best:
            best = cur
    sys.stdout.write(f"{best}\n")


main()
