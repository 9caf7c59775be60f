import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2 : n + 2]))
    s = sum(a[:k])
    best = s
    for x, y in zip(a[k:], a):  # x enters the window, y leaves it
        s += x - y
        if s > best:
            best = s
    sys.stdout.write(f"{best / k:.6f}\n")


main()
