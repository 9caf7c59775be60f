import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    size = 1
    while size < n:
        size *= 2
    # bottom-up min segment tree: leaves at size..2*size-1, padding larger than any value
    tree = [0] * size + list(map(int, data[2 : 2 + n])) + [2**62] * (size - n)
    for v in range(size - 1, 0, -1):
        x, y = tree[2 * v], tree[2 * v + 1]
        tree[v] = x if x < y else y
    ops = list(map(int, data[2 + n : 2 + n + 3 * q]))
    out = []
    for p in range(0, 3 * q, 3):
        u, w = ops[p + 1], ops[p + 2]
        if ops[p] == 1:  # a_u = w
            v = u - 1 + size
            tree[v] = w
            v >>= 1
            while v:
                x, y = tree[2 * v], tree[2 * v + 1]
                m = x if x < y else y
                if tree[v] == m:
                    break  # this node, hence every ancestor, is unchanged
                tree[v] = m
                v >>= 1
        else:  # min of a_u .. a_w
            lo, hi = u - 1 + size, w - 1 + size  # half-open [l, r)
            best = tree[lo]
            while lo < hi:
                if lo & 1:
                    if tree[lo] < best:
                        best = tree[lo]
                    lo += 1
                if hi & 1:
                    hi -= 1
                    if tree[hi] < best:
                        best = tree[hi]
                lo >>= 1
                hi >>= 1
            out.append(best)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
