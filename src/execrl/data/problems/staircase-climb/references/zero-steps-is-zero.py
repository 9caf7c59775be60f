import sys

MOD = 1_000_000_007


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    queries = list(map(int, data[1 : 1 + q]))
    dp = [0, 1, 2, 4]
    for i in range(4, max(queries) + 1):
        dp.append((dp[i - 1] + dp[i - 2] + dp[i - 3]) % MOD)
    sys.stdout.write("\n".join(str(dp[n]) for n in queries) + "\n")


main()
