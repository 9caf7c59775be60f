import sys


def second_largest(a):
    first = second = 0  # 0 means "nothing found yet"
    for x in a:
        if x > first:
            second = first
            first = x
        elif first > x > second:
            second = x
    return second if second != 0 else -1


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
