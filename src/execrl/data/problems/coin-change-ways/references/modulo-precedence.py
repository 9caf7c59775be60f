import sys

MOD = 1_000_000_007


def main():
    data = sys.stdin.read().split()
    n, amount = int(data[0]), int(data[1])
    coins = list(map(int, data[2 : 2 + n]))
    dp = [0] * (amount + 1)
    dp[0] = 1
    for c in coins:
        for a in range(c, amount + 1):
            dp[a] = dp[a] + dp[a - c] % MOD
    print(dp[amount])


main()
