MOD = 1_000_000_007

q = int(input())
queries = [int(input()) for _ in range(q)]
top = max(max(queries), 2)
dp = [0] * (top + 1)
dp[0], dp[1], dp[2] = 1, 1, 2
for i in range(3, top + 1):
    dp[i] = (dp[i - 1] + dp[i - 2] + dp[i - 3]) % MOD
for n in queries:
    print(dp[n])
