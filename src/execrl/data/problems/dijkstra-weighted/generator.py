"""Generator for dijkstra-weighted: python generator.py MODE SEED."""

import random
import sys

MAX_N = 4000
MAX_M = 8 * 10**4
MAX_W = 10**9


def random_edges(rng, n, m, wmax, wmin=0):
    return [(rng.randint(1, n), rng.randint(1, n), rng.randint(wmin, wmax)) for _ in range(m)]


def small(rng):
    n = rng.randint(1, 7)
    m = rng.randint(0, 12)
    wmax = rng.choice([0, 3, 10, MAX_W])
    return n, random_edges(rng, n, m, wmax)


def edge(rng, seed):
    case = seed % 8
    if case == 0:  # a single vertex, no edges or a self-loop
        return 1, rng.choice([[], [(1, 1, 5)], [(1, 1, 0)]])
    if case == 1:  # a long chain of maximum weights: distances far beyond 32 bits
        n = rng.randint(50, MAX_N)
        edges = [(i, i + 1, MAX_W - rng.randint(0, 10)) for i in range(1, n)]
        rng.shuffle(edges)
        return n, edges
    if case == 2:  # parallel edges in both orders: the lighter one must win
        n = rng.randint(5, 40)
        edges = []
        for _ in range(3 * n):
            u, v = rng.randint(1, n), rng.randint(1, n)
            a, b = rng.randint(0, 50), rng.randint(51, 100)
            edges += [(u, v, a), (u, v, b)] if rng.random() < 0.5 else [(u, v, b), (u, v, a)]
        return n, edges
    if case == 3:  # zero-weight edges and cycles back to vertex 1
        n = rng.randint(5, 60)
        edges = random_edges(rng, n, 4 * n, 5)
        edges += [(rng.randint(1, n), 1, rng.randint(1, 5)) for _ in range(n)]
        edges += [(1, rng.randint(2, n), 0) for _ in range(3)]
        return n, edges
    if case == 4:  # few hops expensive, many hops cheap
        n = rng.randint(10, 200)
        edges = [(1, v, 10**6 + v) for v in range(2, n + 1)]
        edges += [(v, v + 1, 1) for v in range(1, n)]
        rng.shuffle(edges)
        return n, edges
    if case == 5:  # unreachable vertices: edges only into vertex 1 or among others
        n = rng.randint(3, 300)
        edges = random_edges(rng, n, 2 * n, MAX_W)
        edges = [(u, v, w) for u, v, w in edges if u != 1]
        edges += [(1, 2, rng.randint(0, MAX_W))]
        return n, edges
    if case == 6:  # no edges at all
        return rng.randint(2, MAX_N), []
    # case 7: a dense random graph with tiny weights (many ties)
    n = rng.randint(20, 80)
    return n, random_edges(rng, n, n * n // 2, 2)


def large(rng, seed):
    style = seed % 5
    n = rng.randint(int(MAX_N * 0.6), MAX_N)
    m = rng.randint(int(MAX_M * 0.3), MAX_M)
    if style == 0:  # random graph, full weight range
        return n, random_edges(rng, n, m, MAX_W)
    if style == 1:  # a heavy backbone path plus random shortcuts: huge distances
        edges = [(i, i + 1, rng.randint(MAX_W // 2, MAX_W)) for i in range(1, n)]
        edges += random_edges(rng, n, m - (n - 1), MAX_W, MAX_W // 2)
        rng.shuffle(edges)
        return n, edges
    if style == 2:  # many improvements: direct heavy edges, then cheap detours
        edges = [(1, v, MAX_W - v) for v in range(2, n + 1)]
        edges += [(v, v + 1, rng.randint(0, 3)) for v in range(1, n)]
        rest = m - len(edges)
        for _ in range(rest):
            u = rng.randint(1, n)
            v = min(n, u + rng.randint(1, 30))
            edges.append((u, v, rng.randint(0, 10**6)))
        rng.shuffle(edges)
        return n, edges
    if style == 3:  # only part of the graph is reachable
        k = rng.randint(n // 3, 2 * n // 3)
        edges = [(rng.randint(1, k), rng.randint(1, k), rng.randint(0, MAX_W)) for _ in range(m // 2)]
        edges += [(rng.randint(k + 1, n), rng.randint(1, n), rng.randint(0, MAX_W)) for _ in range(m - m // 2)]
        rng.shuffle(edges)
        return n, edges
    # style 4: small weights with many ties and zero-weight edges
    return n, random_edges(rng, n, m, rng.choice([1, 10, 1000]))


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        n, edges = small(rng)
    elif mode == "edge":
        n, edges = edge(rng, seed)
    else:
        n, edges = large(rng, seed)
    assert 1 <= n <= MAX_N and 0 <= len(edges) <= MAX_M
    assert all(1 <= u <= n and 1 <= v <= n and 0 <= w <= MAX_W for u, v, w in edges)
    lines = [f"{n} {len(edges)}"] + [f"{u} {v} {w}" for u, v, w in edges]
    sys.stdout.write("\n".join(lines) + "\n")


main()
