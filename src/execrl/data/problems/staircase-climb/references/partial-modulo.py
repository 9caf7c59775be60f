import sys

MOD = 1_000_000_007


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    queries = list(map(int, data[1 : 1 + q]))
    dp = [1, 1, 2]
    for i in range(3, max(queries) + 1):
        dp.append((dp[i - 1] + dp[i - 2]) % MOD + dp[i - 3])
    sys.stdout.write("\n".join(str(dp[n]) for n in queries) + "\n")


main()
