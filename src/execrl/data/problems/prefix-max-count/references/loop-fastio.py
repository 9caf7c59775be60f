import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1 : n + 1]))
    best = a[0]
    count = 1
    for x in a:
        if x > best:
            best = x
            count += 1
    sys.stdout.write(f"{count}\n")


main()
