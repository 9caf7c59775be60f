import sys
from math import isqrt


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    a = list(map(int, data[2 : 2 + n]))
    b = max(1, isqrt(n))  # block length
    block_min = [min(a[lo : lo + b]) for lo in range(0, n, b)]
    out = []
    pos = 2 + n
    for _ in range(q):
        kind, u, w = data[pos], int(data[pos + 1]) - 1, int(data[pos + 2])
        pos += 3
        if kind == b"1":  # a_u = w; recompute that block's minimum at C speed
            a[u] = w
            lo = u - u % b
            block_min[u // b] = min(a[lo : lo + b])
        else:  # min over a[u:w]: partial blocks by slicing, whole blocks from block_min
            bl, br = u // b, (w - 1) // b
            if bl == br:
                out.append(min(a[u:w]))
            else:
                best = min(a[u : (bl + 1) * b])
                right = min(a[br * b : w])
                if right < best:
                    best = right
                if bl + 1 < br:
                    middle = min(block_min[bl + 1 : br])
                    if middle < best:
                        best = middle
                out.append(best)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
