# INCORRECT: off-by-one: the table has W cells (capacities 0..W-1), so a selection that
# weighs exactly W is never considered.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, W = int(data[0]), int(data[1])
    dp = [0] * W
    for i in range(n):
        w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
        for c in range(W - 1, w - 1, -1):
            cand = dp[c - w] + v
            if cand > dp[c]:
                dp[c] = cand
    print(dp[W - 1])


main()
