import sys


def second_largest(a):
    first = second = a[0]
    for x in a[1:]:
        if x > first:
            second, first = first, x
        elif x < first and (second == first or x > second):
            second = x
    return second


def main():
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    pos = 1
    out = []
    for _ in range(t):
        n = int(data[pos])
        a = list(map(int, data[pos + 1 : pos + 1 + n]))
        pos += 1 + n
        out.append(second_largest(a))
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
