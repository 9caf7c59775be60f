# O(n W / word) in C: the whole dp row is packed into one big integer, 32 bits per capacity,
# and each item is a handful of big-int operations (shift, add, a SIMD-within-a-register
# compare, masked select). Values stay below 2^31, so fields never overflow into each other.
import sys

F = 32


def main():
    data = sys.stdin.buffer.read().split()
    n, W = int(data[0]), int(data[1])
    cells = W + 1
    field = (1 << F) - 1
    all_bits = (1 << (F * cells)) - 1
    ones = all_bits // field  # 1 in every field
    high = ones << (F - 1)  # the top bit of every field
    dp = 0
    for i in range(n):
        w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
        if w > W:
            continue
        shift = F * w
        # field c of `take` holds dp[c - w] + v for c >= w, and 0 below w
        take = ((dp << shift) & all_bits) + ((v * ones) >> shift << shift)
        keep = (((dp | high) - take) & high) >> (F - 1)  # 1 where dp[c] >= take[c]
        mask = (keep << F) - keep
        dp = (dp & mask) | (take & (all_bits ^ mask))
    print((dp >> (F * W)) & field)


main()
