import sys

MASK = (1 << 64) - 1  # arithmetic modulo 2^64, like unsigned 64-bit overflow
BASE = 131


def main():
    s = sys.stdin.buffer.read().split()[1]
    n = len(s)
    h = [0] * (n + 1)  # prefix hashes of s
    g = [0] * (n + 1)  # prefix hashes of reversed s
    p = [1] * (n + 1)
    for i in range(n):
        h[i + 1] = (h[i] * BASE + s[i]) & MASK
        g[i + 1] = (g[i] * BASE + s[n - 1 - i]) & MASK
        p[i + 1] = (p[i] * BASE) & MASK

    def is_pal(i, j):  # s[i:j]
        fwd = (h[j] - h[i] * p[j - i]) & MASK
        bwd = (g[n - i] - g[n - j] * p[j - i]) & MASK
        return fwd == bwd

    # Appending one character can lengthen the best palindrome by at most 2.
    best = 1
    for j in range(2, n + 1):
        if j - best - 2 >= 0 and is_pal(j - best - 2, j):
            best += 2
        elif is_pal(j - best - 1, j):
            best += 1
    print(best)


main()
