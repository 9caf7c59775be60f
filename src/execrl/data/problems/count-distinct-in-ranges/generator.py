import random
import sys

MAX_N = 25_000
MAX_Q = 25_000
VMAX = 10**9


def emit(a, queries):
    lines = [f"{len(a)} {len(queries)}", " ".join(map(str, a))]
    lines += [f"{l} {r}" for l, r in queries]
    sys.stdout.write("\n".join(lines) + "\n")


def rand_query(rng, n, max_len=None):
    if max_len is None:
        l, r = sorted((rng.randint(1, n), rng.randint(1, n)))
        return l, r
    length = rng.randint(1, min(n, max_len))
    l = rng.randint(1, n - length + 1)
    return l, l + length - 1


def small(rng):
    n = rng.randint(1, 10)
    hi = rng.choice([2, 3, 5, 10, VMAX])
    a = [rng.randint(1, hi) for _ in range(n)]
    return a, [rand_query(rng, n) for _ in range(rng.randint(1, 10))]


def edge(rng, case):
    if case == 0:  # single element, the largest value
        return [VMAX], [(1, 1)]
    if case == 1:  # all equal
        n = rng.randint(2, 10)
        return [7] * n, [rand_query(rng, n) for _ in range(5)] + [(1, n)]
    if case == 2:  # all distinct, full and suffix ranges
        n = rng.randint(3, 10)
        a = rng.sample(range(1, VMAX + 1), n)
        return a, [(1, n), (2, n), (n, n), (1, 1)]
    if case == 3:  # every range repeats values seen before its left end
        return [1, 2, 3, 1, 2, 3], [(4, 6), (2, 5), (3, 6), (4, 4), (1, 6)]
    if case == 4:  # extreme values alternating
        n = rng.randint(4, 10)
        a = [1 if i % 2 else VMAX for i in range(n)]
        return a, [rand_query(rng, n) for _ in range(6)]
    if case == 5:  # a single one-element query at the last position
        n = rng.randint(2, 10)
        return [rng.randint(1, 5) for _ in range(n)], [(n, n)]
    if case == 6:  # n a power of two, ranges ending at n
        a = [3, 1, 4, 1, 5, 9, 2, 6]
        return a, [(1, 8), (5, 8), (8, 8), (2, 7), (3, 8)]
    if case == 7:  # sorted with duplicates
        a = sorted(rng.randint(1, 4) for _ in range(9))
        return a, [rand_query(rng, 9) for _ in range(6)]
    if case == 8:  # many identical full-range queries
        n = rng.randint(5, 10)
        return [rng.randint(1, 3) for _ in range(n)], [(1, n)] * 8
    # case 9: moderate random with large values and repeats
    n = 40
    pool = [rng.randint(1, VMAX) for _ in range(12)]
    a = [rng.choice(pool) for _ in range(n)]
    return a, [rand_query(rng, n) for _ in range(40)]


def large(rng, seed):
    n = rng.randint(int(MAX_N * 0.3), MAX_N)
    q = rng.randint(int(MAX_Q * 0.3), MAX_Q)
    kind = seed % 7
    if kind == 0:  # permutation-like (all distinct), full-range-heavy queries
        a = rng.sample(range(1, VMAX + 1), n)
        queries = [(1, n) if rng.random() < 0.5 else rand_query(rng, n) for _ in range(q)]
    elif kind == 1:  # few distinct values
        a = [rng.randint(1, 3) for _ in range(n)]
        queries = [rand_query(rng, n) for _ in range(q)]
    elif kind == 2:  # short ranges
        a = [rng.randint(1, n // 10 + 1) for _ in range(n)]
        queries = [rand_query(rng, n, 50) for _ in range(q)]
    elif kind == 3:  # values repeat with a period: many repeats inside every long range
        period = rng.randint(50, 2000)
        a = [(i % period) + 1 for i in range(n)]
        queries = [rand_query(rng, n) for _ in range(q)]
    elif kind == 4:  # suffix ranges ending at n
        a = [rng.randint(1, VMAX) for _ in range(n)]
        queries = [(rng.randint(1, n), n) for _ in range(q)]
    else:  # random values with moderate repetition, random ranges
        a = [rng.randint(1, n // 2 + 1) * 1000 + 7 for _ in range(n)]
        queries = [rand_query(rng, n) for _ in range(q)]
    return a, queries


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        emit(*small(rng))
    elif mode == "edge":
        emit(*edge(rng, (seed - 1) % 10))
    else:
        emit(*large(rng, seed))


main()
