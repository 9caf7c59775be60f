# O(n W): per item, rebuild dp[w:] with a list comprehension over the shifted old row.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, W = int(data[0]), int(data[1])
    dp = [0] * (W + 1)
    for i in range(n):
        w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
        if w > W:
            continue
        shifted = map(v.__add__, dp[: W + 1 - w])
        dp[w:] = [a if a > b else b for a, b in zip(dp[w:], shifted)]
    print(dp[W])


main()
