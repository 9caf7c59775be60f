MOD = 1_000_000_007

n, amount = map(int, input().split())
coins = list(map(int, input().split()))
dp = [0] * (amount + 1)
dp[0] = 1
for c in coins:
    for a in range(c, amount + 1):
        dp[a] = (dp[a] + dp[a - c]) % MOD
print(dp[amount])
