"""Input generator for inversion-count: python generator.py MODE SEED."""

import random
import sys

MAX_N = 70_000
MAX_A = 10**9


def emit(a):
    sys.stdout.write(f"{len(a)}\n{' '.join(map(str, a))}\n")


def small(rng):
    n = rng.randint(1, 12)
    spread = rng.choice([2, 5, 20, 1000])
    return [rng.randint(-spread, spread) for _ in range(n)]


def nearly_sorted(rng, n, swaps):
    a = sorted(rng.randint(-MAX_A, MAX_A) for _ in range(n))
    for _ in range(swaps):
        i, j = rng.randrange(n), rng.randrange(n)
        a[i], a[j] = a[j], a[i]
    return a


def edge(rng, seed):
    case = seed % 8
    if case == 0:  # minimum n
        return [rng.randint(-MAX_A, MAX_A)]
    if case == 1:  # all equal: no inversions at all
        return [rng.randint(-MAX_A, MAX_A)] * rng.randint(2, 2000)
    if case == 2:  # sorted increasing: no inversions
        return sorted(rng.randint(-MAX_A, MAX_A) for _ in range(rng.randint(100, 3000)))
    if case == 3:  # strictly decreasing and long: n(n-1)/2 inversions, beyond 32 bits
        return sorted(rng.sample(range(-MAX_A, MAX_A), MAX_N), reverse=True)
    if case == 4:  # n = 2^k + 1 with the smallest value last
        n = 2 ** rng.randint(4, 10) + 1
        a = [rng.randint(0, MAX_A) for _ in range(n - 1)]
        return a + [-MAX_A]
    if case == 5:  # two values alternating: many equal pairs
        lo, hi = sorted(rng.sample(range(-MAX_A, MAX_A), 2))
        start = rng.randint(0, 1)
        return [hi if (i + start) % 2 else lo for i in range(rng.randint(100, 3000))]
    if case == 6:  # only the extreme values
        return [rng.choice([-MAX_A, MAX_A]) for _ in range(rng.randint(10, 500))]
    # case 7: nearly sorted, a few swaps
    return nearly_sorted(rng, rng.randint(500, 3000), rng.randint(1, 5))


def large(rng, seed):
    n = rng.randint(MAX_N * 3 // 10, MAX_N)
    kind = seed % 10
    if kind == 0:  # structured: decreasing with repeats, near full size (over 2^31 inversions)
        n = rng.randint(66_000, MAX_N)
        return sorted((rng.randint(-MAX_A, MAX_A) for _ in range(n)), reverse=True)
    if kind == 1:  # structured: nearly sorted
        return nearly_sorted(rng, n, rng.randint(10, 1000))
    if kind == 2:  # structured: organ pipe, increasing then decreasing
        a = sorted(rng.randint(-MAX_A, MAX_A) for _ in range(n))
        return a[0::2] + a[1::2][::-1]
    if kind == 3:  # many repeated values
        return [rng.randint(0, rng.choice([100, 10_000])) for _ in range(n)]
    # wide random values
    return [rng.randint(-MAX_A, MAX_A) for _ in range(n)]


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
