# O(n W): two rolling rows; copy the previous row, then update capacities w..W.
import sys


def main():
    readline = sys.stdin.readline
    n, W = map(int, readline().split())
    prev = [0] * (W + 1)
    for _ in range(n):
        w, v = map(int, readline().split())
        cur = prev[:]
        for c in range(w, W + 1):
            cand = prev[c - w] + v
            if cand > cur[c]:
                cur[c] = cand
        prev = cur
    print(prev[W])


main()
