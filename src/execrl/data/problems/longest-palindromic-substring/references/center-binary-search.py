import sys

MOD = (1 << 61) - 1
BASE = 1_000_003


def main():
    data = sys.stdin.read().split()
    s = data[1]
    n = len(s)
    codes = [ord(c) for c in s]
    h = [0] * (n + 1)  # prefix hashes of s
    g = [0] * (n + 1)  # prefix hashes of reversed s
    p = [1] * (n + 1)
    for i in range(n):
        h[i + 1] = (h[i] * BASE + codes[i]) % MOD
        g[i + 1] = (g[i] * BASE + codes[n - 1 - i]) % MOD
        p[i + 1] = p[i] * BASE % MOD

    def is_palindrome(i, j):  # s[i:j]
        k = j - i
        return (h[j] - h[i] * p[k]) % MOD == (g[n - i] - g[n - j] * p[k]) % MOD

    best = 1
    # Every palindrome has a centre: a character (odd length) or a gap (even length).
    # For each centre, binary search its largest radius, but only if it can beat best.
    for centre in range(2 * n - 1):
        left = centre // 2  # the palindrome is s[left - r : right + r + 1]
        right = left + (centre & 1)
        if right < n and (centre & 1) and s[left] != s[right]:
            continue
        lo = (best - (right - left + 1)) // 2 + 1  # smallest radius that beats best
        hi = min(left, n - 1 - right)  # largest radius inside the string
        if lo > hi or not is_palindrome(left - lo, right + lo + 1):
            continue
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if is_palindrome(left - mid, right + mid + 1):
                lo = mid
            else:
                hi = mid - 1
        best = right - left + 1 + 2 * lo
    print(best)


main()
