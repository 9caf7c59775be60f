import sys
from operator import add


def main():
    mod = 1_000_000_007
    data = sys.stdin.buffer.read().split()
    n, amount = int(data[0]), int(data[1])
    coins = [c for c in map(int, data[2 : 2 + n]) if c < amount]
    dp = [0] * (amount + 1)
    dp[0] = 1
    for c in coins:
        for start in range(c, amount + 1, c):
            dp[start : start + c] = map(add, dp[start : start + c], dp[start - c : start])
        dp = [x % mod for x in dp]
    print(dp[amount])


main()
