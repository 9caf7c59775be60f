"""Input generator for max-subarray-sum: python generator.py MODE SEED."""

import random
import sys

MAX_N = 200_000
MAX_A = 10**9


def emit(a):
    sys.stdout.write(f"{len(a)}\n{' '.join(map(str, a))}\n")


def drifted(rng, n, spread, drift):
    return [max(-MAX_A, min(MAX_A, rng.randint(-spread, spread) + drift)) for _ in range(n)]


def small(rng):
    n = rng.randint(1, 12)
    spread = rng.choice([3, 10, 100])
    if rng.random() < 0.25:  # all negative
        return [rng.randint(-spread, -1) for _ in range(n)]
    return [rng.randint(-spread, spread) for _ in range(n)]


def edge(rng, seed):
    case = seed % 8
    if case == 0:  # minimum n, a negative value
        return [rng.randint(-MAX_A, -1)]
    if case == 1:  # all negative, near the lower bound: the answer is the largest element
        return [rng.randint(-MAX_A, -MAX_A + 1000) for _ in range(rng.randint(500, 2000))]
    if case == 2:  # all maximal: the whole array, a sum far beyond 32 bits
        return [MAX_A] * MAX_N
    if case == 3:  # all zeros
        return [0] * rng.randint(1, 1000)
    if case == 4:  # the best subarray is a long prefix
        n = rng.randint(2000, 5000)
        cut = rng.randint(n // 2, n - 10)
        return [rng.randint(1, MAX_A) for _ in range(cut)] + [
            rng.randint(-MAX_A, -1) for _ in range(n - cut)
        ]
    if case == 5:  # alternating +big / -(big-1): the best run spans the whole array
        n = rng.randint(1000, 3000) | 1
        return [MAX_A if i % 2 == 0 else -MAX_A + 1 for i in range(n)]
    if case == 6:  # one positive value among negatives
        n = rng.randint(100, 1000)
        a = [rng.randint(-MAX_A, -1) for _ in range(n)]
        a[rng.randrange(n)] = rng.randint(1, MAX_A)
        return a
    # case 7: sorted in decreasing order, positives first
    n = rng.randint(100, 2000)
    return sorted((rng.randint(-MAX_A, MAX_A) for _ in range(n)), reverse=True)


def large(rng, seed):
    n = rng.randint(MAX_N * 3 // 10, MAX_N)
    kind = seed % 10
    if kind == 0:  # structured: all negative
        return [rng.randint(-MAX_A, -1) for _ in range(n)]
    if kind == 1:  # structured: sorted increasing (the best subarray is a suffix)
        return sorted(rng.randint(-MAX_A, MAX_A) for _ in range(n))
    if kind == 2:  # structured: all equal positive
        return [rng.randint(1, MAX_A)] * n
    if kind in (3, 4):  # small values
        return [rng.randint(-100, 100) for _ in range(n)]
    # wide values with a small positive or negative drift: long best runs
    return drifted(rng, n, MAX_A, rng.choice([-MAX_A // 100, 0, 0, MAX_A // 100, MAX_A // 10]))


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
