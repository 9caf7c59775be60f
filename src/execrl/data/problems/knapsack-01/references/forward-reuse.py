# INCORRECT: the in-place 1D loop runs capacities upwards, so an item can be taken again
# (this solves the unbounded knapsack, not 0/1).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, W = int(data[0]), int(data[1])
    dp = [0] * (W + 1)
    for i in range(n):
        w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
        for c in range(w, W + 1):
            cand = dp[c - w] + v
            if cand > dp[c]:
                dp[c] = cand
    print(dp[W])


main()
