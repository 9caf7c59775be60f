# distinct(l, r) computed as (distinct values in a[1..r]) - (distinct values in a[1..l-1])
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    seen = set()
    prefix = [0] * (n + 1)
    for i in range(n):
        seen.add(data[2 + i])
        prefix[i + 1] = len(seen)
    out = []
    pos = n + 2
    for _ in range(q):
        l, r = int(data[pos]), int(data[pos + 1])
        pos += 2
        out.append(prefix[r] - prefix[l - 1])
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
