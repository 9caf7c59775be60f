import random
import sys

MAX_N = 200_000
LIM = 10**4


def small(rng):
    n = rng.randint(1, 10)
    k = rng.randint(1, n)
    hi = rng.choice([5, 100, LIM])
    lo = rng.choice([-hi, -hi // 2, 0])
    return k, [rng.randint(lo, hi) for _ in range(n)]


def edge(rng, case):
    if case == 0:  # one negative element
        return 1, [rng.randint(-LIM, -1)]
    if case == 1:  # the only window is the whole array; its average is not an integer
        n = rng.randint(3, 9)
        a = [rng.randint(-50, 50) for _ in range(n)]
        if sum(a) % n == 0:
            a[0] += 1
        return n, a
    if case == 2:  # all negative: every average is negative
        n = rng.randint(4, 10)
        return rng.randint(2, n), [rng.randint(-LIM, -1) for _ in range(n)]
    if case == 3:  # increasing: the last window is the unique best
        n = rng.randint(4, 10)
        start = rng.randint(-30, 30)
        return rng.randint(1, n - 1), list(range(start, start + n))
    if case == 4:  # all equal extreme values, k = n
        n = rng.randint(2, 10)
        return n, [rng.choice([-LIM, LIM])] * n
    if case == 5:  # k = 1 with extremes
        return 1, [LIM, -LIM, LIM - 1, -LIM, 0]
    if case == 6:  # fractional averages like 2/3
        return 3, [0, 1, 1, 0, 0, 1, 0, 0]
    if case == 7:  # negative fractional best average (-3.5): floor and truncation both differ
        return 2, [-3, -4, -9, -5, -6, -10]
    if case == 8:  # best window at the very end, fractional
        return 2, [-10, 3, -1, 2, 5, 6]
    # case 9: zeros and a single -1
    return 2, [0, -1, 0, -1, 0]


def large(rng, seed):
    n = rng.randint(int(MAX_N * 0.3), MAX_N)
    kind = seed % 8
    k = rng.choice([1, rng.randint(1, 10), rng.randint(1, 1000), rng.randint(1, n)])
    if kind == 0:  # increasing: the last window wins
        step = rng.randint(1, 3)
        a = [min(LIM, -LIM + (i // 2) * step) for i in range(n)]
    elif kind == 2:  # all equal
        a = [rng.randint(-LIM, LIM)] * n
    elif kind == 4:  # all negative, k large-ish
        k = rng.randint(n // 3, n)
        a = [rng.randint(-LIM, -1) for _ in range(n)]
    elif kind == 6:  # alternating extremes
        a = [LIM if i % 2 else -LIM for i in range(n)]
    else:
        a = [rng.randint(-LIM, LIM) for _ in range(n)]
    return k, a


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        k, a = small(rng)
    elif mode == "edge":
        k, a = edge(rng, (seed - 1) % 10)
    else:
        k, a = large(rng, seed)
    sys.stdout.write(f"{len(a)} {k}\n{' '.join(map(str, a))}\n")


main()
