import sys

MOD = (1 << 61) - 1
BASE = 1_000_003


def main():
    text, pattern = sys.stdin.buffer.read().split()
    n, m = len(text), len(pattern)
    if m > n:
        print(0)
        return
    target = 0
    window = 0
    for i in range(m):
        target = (target * BASE + pattern[i]) % MOD
        window = (window * BASE + text[i]) % MOD
    high = pow(BASE, m, MOD)  # weight of the character that leaves the window
    count = 1 if window == target else 0
    for i in range(m, n):
        window = (window * BASE + text[i] - text[i - m] * high) % MOD
        if window == target:
            count += 1
    print(count)


main()
