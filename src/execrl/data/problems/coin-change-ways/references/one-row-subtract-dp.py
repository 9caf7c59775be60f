import sys


def main():
    mod = 1_000_000_007
    data = sys.stdin.read().split()
    n, amount = int(data[0]), int(data[1])
    dp = [0] * (amount + 1)
    dp[0] = 1
    for c in map(int, data[2 : 2 + n]):
        for a in range(c, amount + 1):
            v = dp[a] + dp[a - c]
            if v >= mod:
                v -= mod
            dp[a] = v
    print(dp[amount])


main()
