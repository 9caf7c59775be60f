# Divide and conquer: the best rectangle in [lo, hi] either uses the lowest bar of the
# range at full width or lies entirely left or right of it. The lowest bar of any range
# comes from a sparse table over keys height * 2^18 + index (minimum = lowest, leftmost).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    h = list(map(int, data[1 : n + 1]))
    shift = 18
    mask = (1 << shift) - 1
    table = [[(x << shift) | i for i, x in enumerate(h)]]
    step = 1
    while 2 * step <= n:
        prev = table[-1]
        table.append(list(map(min, prev[: len(prev) - step], prev[step:])))
        step *= 2
    best = 0
    todo = [(0, n - 1)]
    while todo:
        lo, hi = todo.pop()
        k = (hi - lo + 1).bit_length() - 1
        row = table[k]
        key = min(row[lo], row[hi - (1 << k) + 1])
        m = key & mask
        area = (key >> shift) * (hi - lo + 1)
        if area > best:
            best = area
        if lo < m:
            todo.append((lo, m - 1))
        if m < hi:
            todo.append((m + 1, hi))
    print(best)


main()
