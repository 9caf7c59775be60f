import sys

MOD = 1_000_000_007
STEPS = (1, 2, 3)


def main():
    data = sys.stdin.read().split()
    q = int(data[0])
    queries = [int(x) for x in data[1 : 1 + q]]
    top = max(queries)
    dp = [0] * (top + 1)
    dp[0] = 1
    for i in range(1, top + 1):
        total = 0
        for s in STEPS:
            if i >= s:
                total += dp[i - s]
        dp[i] = total % MOD
    print("\n".join(str(dp[n]) for n in queries))


main()
