# O(q sqrt n): block sums plus partial blocks summed with slices.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    a = list(map(int, data[2 : 2 + n]))
    b = max(1, int(n**0.5))
    blocks = [sum(a[i : i + b]) for i in range(0, n, b)]
    out = []
    pos = 2 + n
    for _ in range(q):
        l = int(data[pos]) - 1
        r = int(data[pos + 1])  # half-open [l, r)
        pos += 2
        bl = (l + b - 1) // b
        br = r // b
        if bl >= br:
            out.append(sum(a[l:r]))
        else:
            out.append(sum(a[l : bl * b]) + sum(blocks[bl:br]) + sum(a[br * b : r]))
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
