# INCORRECT: the packed big-integer dp uses 20-bit fields, too narrow for the values allowed
# (totals reach 10^8), so large totals overflow into the neighbouring field.
import sys

F = 20


def main():
    data = sys.stdin.buffer.read().split()
    n, W = int(data[0]), int(data[1])
    cells = W + 1
    field = (1 << F) - 1
    all_bits = (1 << (F * cells)) - 1
    ones = all_bits // field
    high = ones << (F - 1)
    dp = 0
    for i in range(n):
        w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
        if w > W:
            continue
        shift = F * w
        take = ((dp << shift) & all_bits) + ((v * ones) >> shift << shift)
        keep = (((dp | high) - take) & high) >> (F - 1)
        mask = (keep << F) - keep
        dp = (dp & mask) | (take & (all_bits ^ mask))
    print((dp >> (F * W)) & field)


main()
