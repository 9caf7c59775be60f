import random
import sys

MAX_N = 3000
MAX_M = 200000
MAX_W = 10**9


def emit(n, edges):
    lines = [f"{n} {len(edges)}"]
    lines.extend(f"{u} {v} {w}" for u, v, w in edges)
    sys.stdout.write("\n".join(lines) + "\n")


def spanning_tree(rng, vertices, wlo, whi):
    """Random tree edges over the given vertex labels."""
    order = list(vertices)
    rng.shuffle(order)
    return [(order[i], order[rng.randrange(i)], rng.randint(wlo, whi)) for i in range(1, len(order))]


def random_edges(rng, n, m, wlo, whi):
    return [(rng.randint(1, n), rng.randint(1, n), rng.randint(wlo, whi)) for _ in range(m)]


def small(rng):
    n = rng.randint(1, 7)
    m = rng.randint(0, 12)
    whi = rng.choice([5, 20, MAX_W])
    edges = random_edges(rng, n, m, 1, whi)
    if rng.random() < 0.6 and n > 1:
        edges += spanning_tree(rng, range(1, n + 1), 1, whi)
    rng.shuffle(edges)
    return n, edges


def edge(rng, seed):
    kind = seed % 10
    if kind == 0:  # a single vertex, maybe with self-loops
        return 1, [(1, 1, rng.randint(1, MAX_W)) for _ in range(rng.randint(0, 3))]
    if kind == 1:  # two vertices, only self-loops: disconnected
        return 2, [(1, 1, 5), (2, 2, 3)][: rng.randint(0, 2)]
    if kind == 2:  # two connected components
        n = rng.randint(4, 60)
        k = rng.randint(1, n - 1)
        edges = spanning_tree(rng, range(1, k + 1), 1, 100) + spanning_tree(rng, range(k + 1, n + 1), 1, 100)
        edges += [(u, v, w) for u, v, w in random_edges(rng, n, n, 1, 100) if (u <= k) == (v <= k)]
        rng.shuffle(edges)
        return n, edges
    if kind == 3:  # parallel edges, cheapest copy first
        n = rng.randint(2, 40)
        tree = spanning_tree(rng, range(1, n + 1), 1, 1000)
        edges = []
        for u, v, w in tree:
            edges.append((u, v, w))
            edges.append((v, u, w + rng.randint(1, 1000)))
        return n, edges
    if kind == 4:  # fragments form first, then a cheap bridge is the last edge needed
        n = rng.randint(4, 40)
        k = n // 2
        edges = [(i, i + 1, 1) for i in range(1, k)] + [(i, i + 1, 1) for i in range(k + 1, n)]
        edges += [(k, k + 1, 2), (1, n, 3)]
        rng.shuffle(edges)
        return n, edges
    if kind == 5:  # long path of maximal weights: total far beyond 32 bits
        n = rng.randint(5, 300)
        edges = [(i, i + 1, MAX_W - rng.randint(0, 3)) for i in range(1, n)]
        rng.shuffle(edges)
        return n, edges
    if kind == 6:  # all weights equal
        n = rng.randint(2, 50)
        edges = spanning_tree(rng, range(1, n + 1), 7, 7) + random_edges(rng, n, n, 7, 7)
        return n, edges
    if kind == 7:  # one isolated vertex, the rest complete
        n = rng.randint(3, 25)
        iso = rng.randint(1, n)
        rest = [x for x in range(1, n + 1) if x != iso]
        edges = [(a, b, rng.randint(1, 50)) for i, a in enumerate(rest) for b in rest[i + 1 :]]
        rng.shuffle(edges)
        return n, edges
    if kind == 8:  # a tree only (m = n - 1)
        n = rng.randint(2, 100)
        return n, spanning_tree(rng, range(1, n + 1), 1, MAX_W)
    # complete graph with self-loops and parallel edges mixed in
    n = rng.randint(3, 20)
    edges = [(a, b, rng.randint(1, 30)) for a in range(1, n + 1) for b in range(a, n + 1)]
    edges += [(b, a, w + 1) for a, b, w in edges[: n]]
    rng.shuffle(edges)
    return n, edges


def large(rng, seed):
    n = rng.randint(MAX_N * 6 // 10, MAX_N)
    m = rng.randint(MAX_M * 4 // 10, MAX_M)
    kind = seed % 7
    if kind == 0:  # disconnected: two halves
        k = n // 2
        edges = []
        for _ in range(m):
            if rng.random() < 0.5:
                edges.append((rng.randint(1, k), rng.randint(1, k), rng.randint(1, MAX_W)))
            else:
                edges.append((rng.randint(k + 1, n), rng.randint(k + 1, n), rng.randint(1, MAX_W)))
        edges += spanning_tree(rng, range(1, k + 1), 1, MAX_W)
        edges = edges[:MAX_M]
        rng.shuffle(edges)
        return n, edges
    if kind == 1:  # few distinct pairs, many parallel edges
        tree = spanning_tree(rng, range(1, n + 1), 1, MAX_W)
        edges = tree + [(v, u, rng.randint(1, MAX_W)) for u, v, _ in (rng.choice(tree) for _ in range(m - len(tree)))]
        rng.shuffle(edges)
        return n, edges
    if kind == 2:  # all weights equal
        edges = spanning_tree(rng, range(1, n + 1), 1, 1) + random_edges(rng, n, m - n + 1, 1, 1)
        rng.shuffle(edges)
        return n, edges
    if kind == 3:  # maximal weights
        edges = spanning_tree(rng, range(1, n + 1), MAX_W - 100, MAX_W) + random_edges(
            rng, n, m - n + 1, MAX_W - 100, MAX_W
        )
        rng.shuffle(edges)
        return n, edges
    whi = rng.choice([100, MAX_W])
    edges = spanning_tree(rng, range(1, n + 1), 1, whi) + random_edges(rng, n, m - n + 1, 1, whi)
    rng.shuffle(edges)
    return n, edges


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        n, edges = small(rng)
    elif mode == "edge":
        n, edges = edge(rng, seed)
    else:
        n, edges = large(rng, seed)
    emit(n, edges)


main()
