import random
import sys

MAX_N = 100000
MAX_Q = 100000
MAX_A = 10**9


def emit(a, queries):
    out = [f"{len(a)} {len(queries)}", " ".join(map(str, a))]
    out.extend(f"{l} {r}" for l, r in queries)
    sys.stdout.write("\n".join(out) + "\n")


def random_queries(rng, n, q):
    qs = []
    for _ in range(q):
        l = rng.randint(1, n)
        r = rng.randint(1, n)
        if l > r:
            l, r = r, l
        qs.append((l, r))
    return qs


def small(rng):
    n = rng.randint(1, 12)
    q = rng.randint(1, 12)
    bound = rng.choice([5, 20, 1000])
    a = [rng.randint(-bound, bound) for _ in range(n)]
    return a, random_queries(rng, n, q)


def edge(rng, seed):
    kind = seed % 8
    if kind == 0:  # minimum input
        return [rng.randint(-MAX_A, MAX_A)], [(1, 1)]
    if kind == 1:  # all maximal values, whole-array queries (sums beyond 32 bits)
        n = rng.randint(50, 300)
        return [MAX_A] * n, [(1, n)] + random_queries(rng, n, 20)
    if kind == 2:  # all minimal values
        n = rng.randint(50, 300)
        return [-MAX_A] * n, [(1, n), (n, n)] + random_queries(rng, n, 20)
    if kind == 3:  # queries touching the last element
        n = rng.randint(2, 40)
        a = [rng.randint(-100, 100) for _ in range(n)]
        return a, [(rng.randint(1, n), n) for _ in range(15)]
    if kind == 4:  # single-element queries only
        n = rng.randint(1, 40)
        a = [rng.randint(-MAX_A, MAX_A) for _ in range(n)]
        return a, [(i, i) for i in range(1, n + 1)]
    if kind == 5:  # all zeros
        n = rng.randint(1, 50)
        return [0] * n, random_queries(rng, n, 20)
    if kind == 6:  # negative values only, mixed magnitudes
        n = rng.randint(5, 60)
        a = [-rng.randint(1, MAX_A) for _ in range(n)]
        return a, random_queries(rng, n, 25)
    # alternating extremes: sums cancel
    n = rng.randint(10, 100)
    a = [MAX_A if i % 2 == 0 else -MAX_A for i in range(n)]
    return a, random_queries(rng, n, 25) + [(1, n)]


def large(rng, seed):
    n = rng.randint(MAX_N * 4 // 10, MAX_N)
    q = rng.randint(MAX_Q * 4 // 10, MAX_Q)
    kind = seed % 5
    if kind == 0:  # all maximal values, long ranges
        a = [MAX_A] * n
        qs = [(rng.randint(1, 10), rng.randint(n - 10, n)) for _ in range(q)]
        return a, qs
    if kind == 1:  # full-range queries only
        a = [rng.randint(-MAX_A, MAX_A) for _ in range(n)]
        return a, [(1, n)] * q
    a = [rng.randint(-MAX_A, MAX_A) for _ in range(n)]
    return a, random_queries(rng, n, q)


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        a, qs = small(rng)
    elif mode == "edge":
        a, qs = edge(rng, seed)
    else:
        a, qs = large(rng, seed)
    emit(a, qs)


main()
