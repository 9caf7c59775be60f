import sys


def main():
    s = sys.stdin.buffer.read().split()[1]
    n = len(s)
    # d1[i]: odd palindromes centred at i; d2[i]: even ones centred between i - 1 and i.
    d1 = [0] * n
    l, r = 0, -1
    for i in range(n):
        k = 1 if i > r else min(d1[l + r - i], r - i + 1)
        while i - k >= 0 and i + k < n and s[i - k] == s[i + k]:
            k += 1
        d1[i] = k
        if i + k - 1 > r:
            l, r = i - k + 1, i + k - 1
    d2 = [0] * n
    l, r = 0, -1
    for i in range(1, n):  # an even centre needs a character on each side
        k = 0 if i > r else min(d2[l + r - i + 1], r - i + 1)
        while i - k - 1 >= 0 and i + k < n and s[i - k - 1] == s[i + k]:
            k += 1
        d2[i] = k
        if i + k - 1 > r:
            l, r = i - k, i + k - 1
    print(max(2 * max(d1) - 1, 2 * max(d2[1:])))


main()
