import sys

MOD = (1 << 61) - 1
BASE = 911382323


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

    def has_palindrome(length):
        """Is some window s[i:i+length] equal to its reverse?"""
        pl = p[length]
        for i in range(n - length + 1):
            j = i + length
            fwd = (h[j] - h[i] * pl) % MOD
            bwd = (g[n - i] - g[n - j] * pl) % MOD
            if fwd == bwd:
                return True
        return False

    best = 1
    # A palindrome of length L >= 3 contains one of length L - 2, so within one parity
    # "a palindrome of length L exists" is monotone: binary search each parity.
    for parity in (1, 2):
        if parity == 2 and (n < 2 or not has_palindrome(2)):
            continue
        lo, hi = 0, (n - parity) // 2  # lengths parity + 2k for k in [lo, hi]
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if has_palindrome(parity + 2 * mid):
                lo = mid
            else:
                hi = mid - 1
        best = max(best, parity + 2 * lo)
    print(best)


main()
