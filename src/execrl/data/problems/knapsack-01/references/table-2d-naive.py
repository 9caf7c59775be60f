# O(n W): textbook 2D table dp[i][c] filled cell by cell with max(), every row over 0..W.
def main():
    n, W = map(int, input().split())
    items = [tuple(map(int, input().split())) for _ in range(n)]
    dp = [[0] * (W + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        w, v = items[i - 1]
        for c in range(W + 1):
            dp[i][c] = dp[i - 1][c]
            if c >= w:
                dp[i][c] = max(dp[i][c], dp[i - 1][c - w] + v)
    print(dp[n][W])


main()
