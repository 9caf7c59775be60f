import sys

MOD = (1 << 61) - 1
BASE = 1_000_003


def main():
    text, pattern = sys.stdin.buffer.read().split()
    n, m = len(text), len(pattern)
    target = 0
    for c in pattern:
        target = (target * BASE + c) % MOD
    prefix = [0] * (n + 1)
    for i in range(n):
        prefix[i + 1] = (prefix[i] * BASE + text[i]) % MOD
    power = pow(BASE, m, MOD)
    count = 0
    for i in range(n - m):  # window text[i:i+m]
        if (prefix[i + m] - prefix[i] * power) % MOD == target:
            count += 1
    print(count)


main()
