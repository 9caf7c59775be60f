MOD = 1_000_000_007

n, amount = map(int, input().split())
coins = list(map(int, input().split()))
# dp[i][a]: ways to pay a with the first i denominations
dp = [[0] * (amount + 1) for _ in range(n + 1)]
dp[0][0] = 1
for i in range(1, n + 1):
    c = coins[i - 1]
    for a in range(amount + 1):
        ways = dp[i - 1][a]
        if a >= c:
            ways += dp[i][a - c]
        dp[i][a] = ways % MOD
print(dp[n][amount])
