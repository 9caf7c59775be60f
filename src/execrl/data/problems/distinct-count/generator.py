import random
import sys

MAX_N = 200000
MAX_A = 10**18


def emit(a):
    sys.stdout.write(f"{len(a)}\n{' '.join(map(str, a))}\n")


def small(rng):
    n = rng.randint(1, 12)
    bound = rng.choice([3, 10, 1000, 10**6])
    return [rng.randint(-bound, bound) for _ in range(n)]


def edge(rng, seed):
    kind = seed % 9
    if kind == 0:  # minimum input
        return [rng.randint(-MAX_A, MAX_A)]
    if kind == 1:  # all equal
        n = rng.randint(2, 300)
        return [rng.choice([MAX_A, -MAX_A, 0, 7])] * n
    if kind == 2:  # all distinct, sorted
        n = rng.randint(2, 300)
        return sorted(rng.sample(range(-10**6, 10**6), n))
    if kind == 3:  # all distinct, reversed
        n = rng.randint(2, 300)
        return sorted(rng.sample(range(-10**6, 10**6), n), reverse=True)
    if kind == 4:  # huge neighbouring values: identical as 64-bit floats
        n = rng.randint(5, 200)
        base = rng.choice([MAX_A, -MAX_A])
        step = -1 if base > 0 else 1
        return [base + step * rng.randint(0, 50) for _ in range(n)]
    if kind == 5:  # values that agree modulo 10^6
        n = rng.randint(5, 200)
        c = rng.randint(0, 10**6 - 1)
        return [c + 10**6 * rng.randint(-1000, 1000) for _ in range(n)]
    if kind == 6:  # exactly two distinct values, the maximum once
        n = rng.randint(2, 100)
        a = [rng.randint(-5, 5)] * (n - 1) + [MAX_A]
        rng.shuffle(a)
        return a
    if kind == 7:  # extremes and zero
        n = rng.randint(3, 100)
        return [rng.choice([-MAX_A, 0, MAX_A]) for _ in range(n)]
    # two elements
    return [rng.randint(-MAX_A, MAX_A), rng.randint(-MAX_A, MAX_A)]


def large(rng, seed):
    n = rng.randint(MAX_N * 4 // 10, MAX_N)
    kind = seed % 10
    if kind == 0:  # small domain, many repeats
        return [rng.randint(-1000, 1000) for _ in range(n)]
    if kind == 1:  # sorted distinct
        return sorted(rng.sample(range(-MAX_A, MAX_A), n))
    if kind == 2:  # all equal
        return [rng.randint(-MAX_A, MAX_A)] * n
    if kind == 3:  # about half distinct
        pool = [rng.randint(-MAX_A, MAX_A) for _ in range(n // 2)]
        return [rng.choice(pool) for _ in range(n)]
    if kind == 4:  # huge neighbouring values
        return [MAX_A - rng.randint(0, n) for _ in range(n)]
    return [rng.randint(-MAX_A, MAX_A) for _ in range(n)]


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        a = small(rng)
    elif mode == "edge":
        a = edge(rng, seed)
    else:
        a = large(rng, seed)
    emit(a)


main()
