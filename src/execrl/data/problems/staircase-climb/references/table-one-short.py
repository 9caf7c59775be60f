import sys

MOD = 1_000_000_007
LIMIT = 500_000


def main():
    dp = [0] * LIMIT
    dp[0], dp[1], dp[2] = 1, 1, 2
    for i in range(3, LIMIT):
        dp[i] = (dp[i - 1] + dp[i - 2] + dp[i - 3]) % MOD
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    out = [str(dp[int(x)]) for x in data[1 : 1 + q]]
    sys.stdout.write("\n".join(out) + "\n")


main()
