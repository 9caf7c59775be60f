import random
import sys

MAX_N = 150_000
HMAX = 10**9


def small(rng):
    n = rng.randint(1, 10)
    hi = rng.choice([1, 3, 5, 10, HMAX])
    return [rng.randint(0, hi) for _ in range(n)]


def edge(rng, case):
    if case == 0:
        return [0]
    if case == 1:
        return [HMAX]
    if case == 2:  # all equal: the whole row
        return [rng.randint(1, 9)] * rng.randint(2, 9)
    if case == 3:  # strictly increasing: the best rectangle ends at the last bar
        start = rng.randint(1, 5)
        return list(range(start, start + rng.randint(3, 9)))
    if case == 4:  # strictly decreasing: the best rectangle's lowest bar is on its right
        start = rng.randint(6, 12)
        return list(range(start, start - rng.randint(3, 6), -1))
    if case == 5:  # all zero
        return [0] * rng.randint(1, 8)
    if case == 6:  # equal tall bars split by a low one
        return [5, 5, 1, 5, 5, 5]
    if case == 7:  # largest possible heights on every bar
        return [HMAX] * rng.randint(2, 9)
    if case == 8:  # zeros separating blocks
        return [3, 3, 0, 4, 4, 4, 0, 2]
    # case 9: pyramid
    k = rng.randint(3, 6)
    return list(range(1, k + 1)) + list(range(k - 1, 0, -1))


def large(rng, seed):
    n = rng.randint(int(MAX_N * 0.3), MAX_N)
    kind = seed % 8
    if kind == 0:  # increasing: the stack only grows until the end
        return [i + 1 for i in range(n)]
    if kind == 1:  # many ties: few distinct heights
        return [rng.randint(0, 10) for _ in range(n)]
    if kind == 2:  # decreasing
        return [HMAX - i for i in range(n)]
    if kind == 3:  # all equal, the largest height (answer about n * 10^9)
        return [HMAX] * n
    if kind == 4:  # pyramid with noise
        return [min(HMAX, (min(i, n - 1 - i) + 1) * 1000 + rng.randint(0, 999)) for i in range(n)]
    if kind == 5:  # sawtooth
        period = rng.randint(2, 1000)
        return [(i % period) * 1000 + 1 for i in range(n)]
    return [rng.randint(0, HMAX) for _ in range(n)]


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        h = small(rng)
    elif mode == "edge":
        h = edge(rng, (seed - 1) % 10)
    else:
        h = large(rng, seed)
    sys.stdout.write(f"{len(h)}\n{' '.join(map(str, h))}\n")


main()
