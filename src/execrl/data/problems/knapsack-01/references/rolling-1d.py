# O(n W): one array updated in place, capacities in decreasing order so each item is used once.
import sys


def main():
    readline = sys.stdin.readline
    n, W = map(int, readline().split())
    dp = [0] * (W + 1)
    for _ in range(n):
        w, v = map(int, readline().split())
        for c in range(W, w - 1, -1):
            cand = dp[c - w] + v
            if cand > dp[c]:
                dp[c] = cand
    print(dp[W])


main()
