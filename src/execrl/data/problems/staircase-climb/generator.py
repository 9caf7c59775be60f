"""Input generator for staircase-climb: python generator.py MODE SEED."""

import random
import sys

MAX_Q = 5000
MAX_N = 500_000


def emit(queries):
    print(len(queries))
    print("\n".join(map(str, queries)))


def small(rng):
    q = rng.randint(1, 10)
    hi = rng.choice([5, 20, 40, 60])
    return [rng.randint(0, hi) for _ in range(q)]


def edge(rng, seed):
    kind = seed % 8
    if kind == 0:
        return [0]
    if kind == 1:
        return [MAX_N]
    if kind == 2:
        return [rng.choice([0, 1, 2, 3, MAX_N, MAX_N - 1]) for _ in range(rng.randint(5, 30))]
    if kind == 3:
        return list(range(0, 60))
    if kind == 4:
        return [rng.randint(30, 45) for _ in range(rng.randint(10, 40))]
    if kind == 5:
        return [rng.randint(MAX_N - 100, MAX_N) for _ in range(rng.randint(50, 200))]
    if kind == 6:
        n = rng.randint(0, 3)
        return [n] * rng.randint(1, 50)
    return [rng.randint(0, MAX_N) for _ in range(rng.randint(100, 500))]


def large(rng, seed):
    scale = rng.uniform(0.3, 1.0)
    q = max(1, int(MAX_Q * scale))
    top = int(MAX_N * scale)
    kind = seed % 5
    if kind == 0:
        return [top] * q  # every query at the largest n
    queries = [rng.randint(0, top) for _ in range(q)]
    if kind == 1:
        queries.sort(reverse=True)
    elif kind == 2:
        queries.sort()
    queries[rng.randrange(q)] = top
    return queries


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        emit(small(rng))
    elif mode == "edge":
        emit(edge(rng, seed))
    elif mode == "large":
        emit(large(rng, seed))
    else:
        raise SystemExit(f"unknown mode {mode!r}")


main()
