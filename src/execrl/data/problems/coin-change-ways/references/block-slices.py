import sys
from operator import add


def main():
    mod = 1_000_000_007
    data = sys.stdin.buffer.read().split()
    n, amount = int(data[0]), int(data[1])
    dp = [0] * (amount + 1)
    dp[0] = 1
    bound = 1  # every entry is below bound
    for c in map(int, data[2 : 2 + n]):
        if c > amount:
            continue
        for start in range(c, amount + 1, c):
            dp[start : start + c] = map(add, dp[start : start + c], dp[start - c : start])
        bound *= amount // c + 1
        if bound >= 1 << 60:
            dp = [x % mod for x in dp]
            bound = mod
    sys.stdout.write(f"{dp[amount] % mod}\n")


main()
