import sys

MOD = (1 << 61) - 1
BASE = 1_000_003


def main():
    s = sys.stdin.buffer.read().split()[1]
    n = len(s)
    rs = s[::-1]
    h = [0] * (n + 1)  # prefix hashes of s
    g = [0] * (n + 1)  # prefix hashes of reversed s
    p = [1] * (n + 1)
    for i in range(n):
        h[i + 1] = (h[i] * BASE + s[i]) % MOD
        g[i + 1] = (g[i] * BASE + rs[i]) % MOD
        p[i + 1] = p[i] * BASE % MOD

    def is_pal(i, j):  # s[i:j]
        fwd = (h[j] - h[i] * p[j - i]) % MOD
        bwd = (g[n - i] - g[n - j] * p[j - i]) % MOD
        return fwd == bwd

    # Appending one character can lengthen the best palindrome by at most 2, so for each
    # end position only lengths best + 2 and best + 1 need checking.
    best = 1
    for j in range(2, n + 1):
        if j - best - 2 >= 0 and is_pal(j - best - 2, j):
            best += 2
        elif is_pal(j - best - 1, j):
            best += 1
    print(best)


main()
