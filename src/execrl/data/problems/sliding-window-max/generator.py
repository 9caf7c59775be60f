"""Input generator for sliding-window-max: python generator.py MODE SEED."""

import random
import sys

MAX_N = 200_000
MAX_A = 10**9


def emit(k, a):
    sys.stdout.write(f"{len(a)} {k}\n{' '.join(map(str, a))}\n")


def small(rng):
    n = rng.randint(1, 12)
    k = rng.randint(1, n)
    lo = rng.choice([-30, -10, 0])
    return k, [rng.randint(lo, lo + rng.choice([5, 20, 60])) for _ in range(n)]


def edge(rng, seed):
    case = seed % 8
    if case == 0:  # minimum n and k
        return 1, [rng.randint(-MAX_A, MAX_A)]
    if case == 1:  # k = 1: the output is the array itself
        return 1, [rng.randint(-MAX_A, MAX_A) for _ in range(rng.randint(100, 1000))]
    if case == 2:  # k = n, all negative: one window
        n = rng.randint(100, 2000)
        return n, [rng.randint(-MAX_A, -1) for _ in range(n)]
    if case == 3:  # all equal
        n = rng.randint(100, 2000)
        return rng.randint(1, n), [rng.randint(-MAX_A, MAX_A)] * n
    if case == 4:  # strictly increasing
        n = rng.randint(100, 2000)
        return rng.randint(2, n // 2), sorted(rng.sample(range(-MAX_A, MAX_A), n))
    if case == 5:  # strictly decreasing: the maximum leaves every window
        n = rng.randint(100, 2000)
        return rng.randint(2, n // 2), sorted(rng.sample(range(-MAX_A, MAX_A), n), reverse=True)
    if case == 6:  # all negative, random
        n = rng.randint(100, 2000)
        return rng.randint(1, n), [rng.randint(-MAX_A, -1) for _ in range(n)]
    # case 7: the two extreme values only, short windows
    n = rng.randint(10, 500)
    return rng.randint(2, 4), [rng.choice([-MAX_A, MAX_A]) for _ in range(n)]


def large(rng, seed):
    n = rng.randint(MAX_N * 3 // 10, MAX_N)
    # mostly windows of moderate length, so there are many windows of many elements each
    k = rng.randint(10, n // 2) if rng.random() < 0.8 else rng.randint(2, 10)
    kind = seed % 10
    if kind == 0:  # structured: decreasing, the maximum expires at every step
        return k, sorted((rng.randint(-MAX_A, MAX_A) for _ in range(n)), reverse=True)
    if kind == 1:  # structured: increasing
        return k, sorted(rng.randint(-MAX_A, MAX_A) for _ in range(n))
    if kind == 2:  # structured: all equal
        return k, [rng.randint(-MAX_A, MAX_A)] * n
    if kind == 3:  # zigzag: decreasing runs of length about k
        run = max(2, k + rng.randint(-3, 3))
        return k, [((i // run) * 7 - (i % run) * 3) % (2 * MAX_A) - MAX_A for i in range(n)]
    if kind == 4:  # all negative
        return k, [rng.randint(-MAX_A, -1) for _ in range(n)]
    # wide random values
    return k, [rng.randint(-MAX_A, MAX_A) for _ in range(n)]


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed * 7919 + {"small": 1, "edge": 2, "large": 3}[mode])
    if mode == "small":
        k, a = small(rng)
    elif mode == "edge":
        k, a = edge(rng, seed)
    else:
        k, a = large(rng, seed)
    emit(k, a)


if __name__ == "__main__":
    main()
