import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2 : 2 + n]))
    best, where = a[0], 0  # the current maximum and its position
    out = []
    for i in range(n):
        x = a[i]
        if x >= best:
            best, where = x, i
        elif where <= i - k:
            # the maximum left the window: the next candidate is the value after it
            where += 1
            best = a[where]
            if x >= best:
                best, where = x, i
        if i >= k - 1:
            out.append(best)
    sys.stdout.write(" ".join(map(str, out)) + "\n")


main()
