import sys


def second_largest(values):
    first = second = -1
    for x in values:
        if x > first:
            second = first
            first = x
        elif first > x > second:
            second = x
    return second


def main():
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    pos = 1
    out = []
    for _ in range(t):
        n = int(data[pos])
        values = list(map(int, data[pos + 1 : pos + 1 + n]))
        pos += 1 + n
        out.append(second_largest(values))
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
