"""Input generator for connected-components: python generator.py MODE SEED."""

import random
import sys

MAX_N = 5000
MAX_M = 100_000


def emit(n, edges):
    lines = [f"{n} {len(edges)}"]
    lines.extend(f"{u} {v}" for u, v in edges)
    print("\n".join(lines))


def random_edges(rng, n, m):
    return [(rng.randint(1, n), rng.randint(1, n)) for _ in range(m)]


def grouped_edges(rng, n, m, groups):
    """Random edges inside `groups` random vertex classes (vertex labels shuffled)."""
    order = list(range(1, n + 1))
    rng.shuffle(order)
    classes = [order[i::groups] for i in range(groups)]
    edges = []
    for _ in range(m):
        cls = classes[rng.randrange(groups)]
        edges.append((rng.choice(cls), rng.choice(cls)))
    return edges


def small(rng):
    n = rng.randint(1, 12)
    m = rng.randint(0, 14)
    return n, random_edges(rng, n, m)


def edge(rng, seed):
    kind = seed % 8
    if kind == 0:
        return 1, []
    if kind == 1:
        n = rng.randint(2, 50)
        return n, []
    if kind == 2:
        return 1, [(1, 1)] * rng.randint(1, 5)
    if kind == 3:
        # vertex n isolated, everything else one path
        n = rng.randint(3, 40)
        return n, [(i, i + 1) for i in range(1, n - 1)]
    if kind == 4:
        # a few vertices repeatedly joined: cycles, repeated edges and self-loops
        n = rng.randint(3, 8)
        edges = [(i, i % n + 1) for i in range(1, n + 1)]
        edges += [(1, 2)] * 3 + [(3, 3)]
        rng.shuffle(edges)
        return n, edges
    if kind == 5:
        n = MAX_N
        order = list(range(1, n + 1))
        rng.shuffle(order)
        return n, [(order[i], order[i + 1]) for i in range(n - 1)]
    if kind == 6:
        # star on the even vertices, odd ones isolated, some self-loops
        n = rng.randint(10, 60)
        edges = [(2, v) for v in range(4, n + 1, 2)] + [(v, v) for v in range(1, n + 1, 7)]
        rng.shuffle(edges)
        return n, edges
    n = rng.randint(50, 300)
    return n, grouped_edges(rng, n, rng.randint(n, 3 * n), rng.randint(2, 10))


def large(rng, seed):
    n = int(MAX_N * rng.uniform(0.5, 1.0))
    m = int(MAX_M * rng.uniform(0.3, 1.0))
    kind = seed % 5
    if kind == 0:
        return n, random_edges(rng, n, m)
    if kind == 1:
        # a random spanning path hidden among random edges: one component
        order = list(range(1, n + 1))
        rng.shuffle(order)
        edges = [(order[i], order[i + 1]) for i in range(n - 1)]
        edges += random_edges(rng, n, max(0, m - len(edges)))
        rng.shuffle(edges)
        return n, edges
    if kind == 2:
        return n, grouped_edges(rng, n, m, rng.randint(20, 200))
    if kind == 3:
        # few distinct pairs, heavily repeated, plus self-loops
        pool = random_edges(rng, n, 2 * n)
        return n, [rng.choice(pool) if rng.random() < 0.9 else (v, v)
                   for v in (rng.randint(1, n) for _ in range(m))]
    # sparse-ish: every merge matters (late edges inside big components)
    edges = [(rng.randint(1, v - 1), v) for v in range(2, n + 1)]
    rng.shuffle(edges)
    edges += random_edges(rng, n, max(0, m - len(edges)))
    return n, edges


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        n, edges = small(rng)
    elif mode == "edge":
        n, edges = edge(rng, seed)
    elif mode == "large":
        n, edges = large(rng, seed)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    emit(n, edges)


main()
