import sys


def main():
    s = sys.stdin.buffer.read().split()[1]
    n = len(s)
    # Manacher: d[i] = number of palindromes centred at character i (radius + 1).
    d = [0] * n
    l, r = 0, -1
    for i in range(n):
        k = 1 if i > r else min(d[l + r - i], r - i + 1)
        while i - k >= 0 and i + k < n and s[i - k] == s[i + k]:
            k += 1
        d[i] = k
        if i + k - 1 > r:
            l, r = i - k + 1, i + k - 1
    print(2 * max(d) - 1)


main()
