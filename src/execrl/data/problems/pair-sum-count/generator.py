"""Input generator for pair-sum-count: python generator.py MODE SEED."""

import random
import sys

MAX_N = 200_000
MAX_A = 10**9


def emit(k, a):
    sys.stdout.write(f"{len(a)} {k}\n{' '.join(map(str, a))}\n")


def random_case(rng, n, spread):
    a = [rng.randint(-spread, spread) for _ in range(n)]
    # a target that is the sum of two present values, so the answer is usually non-zero
    k = rng.choice(a) + rng.choice(a) if rng.random() < 0.8 else rng.randint(-2 * spread, 2 * spread)
    return k, a


def small(rng):
    n = rng.randint(1, 12)
    return random_case(rng, n, rng.choice([3, 5, 10, 50]))


def edge(rng, seed):
    case = seed % 8
    if case == 0:  # minimum n, the answer is zero by definition
        return rng.randint(-MAX_A, MAX_A), [rng.randint(-MAX_A, MAX_A)]
    if case == 1:  # n = 2 at the extremes of the value range
        v = rng.choice([MAX_A, -MAX_A])
        return 2 * v, [v, v]
    if case == 2:  # all equal and 2v = K: n(n-1)/2 pairs, beyond 32 bits
        v = rng.randint(-MAX_A, MAX_A)
        return 2 * v, [v] * rng.randint(70_000, 100_000)
    if case == 3:  # two complementary values, about n^2/4 pairs (> 2^32)
        n = MAX_N
        v = rng.randint(1, MAX_A)
        a = [v if rng.random() < 0.5 else -v for _ in range(n)]
        return 0, a
    if case == 4:  # answer zero: every value even, K odd
        n = rng.randint(1000, 5000)
        return 2 * rng.randint(-MAX_A // 2, MAX_A // 2) + 1, [
            2 * rng.randint(-MAX_A // 2, MAX_A // 2) for _ in range(n)
        ]
    if case == 5:  # very negative values and target
        n = rng.randint(10, 300)
        a = [rng.choice([-MAX_A, -MAX_A + 1, -MAX_A + 2]) for _ in range(n)]
        return -2 * MAX_A + 2, a
    if case == 6:  # many duplicates, several self-complementary values
        n = rng.randint(20, 60)
        return 0, [rng.randint(-3, 3) for _ in range(n)]
    # case 7: sorted descending, distinct, every value pairs with one other
    n = rng.randint(100, 1000)
    a = sorted(rng.sample(range(-MAX_A, MAX_A), n), reverse=True)
    k = a[0] + a[-1]
    return k, a


def large(rng, seed):
    n = rng.randint(MAX_N * 3 // 10, MAX_N)
    kind = seed % 10
    if kind == 0:  # structured: all equal, 2v = K (the answer is n(n-1)/2)
        v = rng.randint(-MAX_A, MAX_A)
        return 2 * v, [v] * n
    if kind == 1:  # structured: sorted, many duplicates
        k, a = random_case(rng, n, rng.randint(100, 10_000))
        a.sort()
        return k, a
    if kind == 2:  # structured: wide values in reverse order, few pairs
        k, a = random_case(rng, n, MAX_A)
        a.sort(reverse=True)
        return k, a
    if kind == 3:  # wide random values
        return random_case(rng, n, MAX_A)
    # random values in a narrow range: many duplicates and very many pairs
    return random_case(rng, n, rng.choice([100, 1000, 10_000]))


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
