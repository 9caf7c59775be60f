import sys
from operator import add


def main():
    mod = 1_000_000_007
    data = sys.stdin.buffer.read().split()
    n, amount = int(data[0]), int(data[1])
    dp = [0] * (amount + 1)
    dp[0] = 1
    for c in map(int, data[2 : 2 + n]):
        if c <= amount:
            dp[c:] = [x % mod for x in map(add, dp[c:], dp[: amount + 1 - c])]
    print(dp[amount])


main()
