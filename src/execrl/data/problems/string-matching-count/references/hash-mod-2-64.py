import sys

MASK = (1 << 64) - 1  # arithmetic modulo 2^64, like unsigned 64-bit overflow
BASE = 131


def main():
    text, pattern = sys.stdin.buffer.read().split()
    n, m = len(text), len(pattern)
    if m > n:
        print(0)
        return
    target = window = 0
    for i in range(m):
        target = (target * BASE + pattern[i]) & MASK
        window = (window * BASE + text[i]) & MASK
    high = pow(BASE, m, 1 << 64)
    count = 1 if window == target else 0
    for i in range(m, n):
        window = (window * BASE + text[i] - text[i - m] * high) & MASK
        if window == target:
            count += 1
    print(count)


main()
