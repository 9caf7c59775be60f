"""Input generator for longest-increasing-subsequence: python generator.py MODE SEED."""

import random
import sys

MAX_N = 100_000
MAX_A = 10**9


def emit(a):
    sys.stdout.write(f"{len(a)}\n{' '.join(map(str, a))}\n")


def small(rng):
    n = rng.randint(1, 12)
    lo = rng.choice([-20, -5, 0, 1])
    return [rng.randint(lo, lo + rng.choice([3, 8, 30])) for _ in range(n)]


def edge(rng, seed):
    case = seed % 8
    if case == 0:  # minimum n
        return [rng.randint(-MAX_A, MAX_A)]
    if case == 1:  # all equal: the answer is 1
        return [rng.randint(-MAX_A, MAX_A)] * rng.randint(2, 1000)
    if case == 2:  # strictly increasing negative values: the answer is n
        n = rng.randint(1000, 5000)
        return sorted(rng.sample(range(-MAX_A, 0), n))
    if case == 3:  # strictly decreasing: the answer is 1
        n = rng.randint(1000, 5000)
        return sorted(rng.sample(range(-MAX_A, MAX_A), n), reverse=True)
    if case == 4:  # non-decreasing with many repeats
        n = rng.randint(1000, 5000)
        return sorted(rng.randint(0, 50) for _ in range(n))
    if case == 5:  # all negative, random
        return [rng.randint(-MAX_A, -1) for _ in range(rng.randint(50, 500))]
    if case == 6:  # only the two extreme values
        return [rng.choice([-MAX_A, MAX_A]) for _ in range(rng.randint(10, 200))]
    # case 7: a short increasing run of large values, then a longer one of small values
    k = rng.randint(5, 50)
    high = sorted(rng.sample(range(MAX_A // 2, MAX_A), k))
    low = sorted(rng.sample(range(0, MAX_A // 2), k + rng.randint(1, 50)))
    return high + low


def trend(rng, n, noise):
    # increasing trend plus random noise of `noise` steps: long increasing subsequences
    step = 2 * MAX_A // (n + noise)
    return [-MAX_A + i * step + rng.randint(0, noise * step) for i in range(n)]


def large(rng, seed):
    n = rng.randint(MAX_N * 3 // 10, MAX_N)
    kind = seed % 10
    if kind == 0:  # structured: strictly increasing (the longest tails array)
        return sorted(rng.sample(range(-MAX_A, MAX_A), n))
    if kind == 2:  # structured: decreasing
        return sorted((rng.randint(-MAX_A, MAX_A) for _ in range(n)), reverse=True)
    if kind == 3:  # many duplicates
        return [rng.randint(0, rng.choice([10, 1000])) for _ in range(n)]
    if kind == 4:  # increasing blocks of a few values each
        width = rng.randint(2, 20)
        return [(i // width) * 10 + rng.randint(0, 15) for i in range(n)]
    if kind == 9:  # wide random values
        return [rng.randint(-MAX_A, MAX_A) for _ in range(n)]
    # increasing trend with noise
    return trend(rng, n, rng.choice([2, 10, 100, 1000, 10_000]))


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed * 7919 + {"small": 1, "edge": 2, "large": 3}[mode])
    if mode == "small":
        a = small(rng)
    elif mode == "edge":
        a = edge(rng, seed)
    else:
        a = large(rng, seed)
    emit(a)


if __name__ == "__main__":
    main()
