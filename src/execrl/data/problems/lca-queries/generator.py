"""Input generator for lca-queries: python generator.py MODE SEED.

Trees are built with parent(i) < i and then relabelled at random (the root stays 1), so
vertex numbers say nothing about depth.
"""

import random
import sys

MAX_N = 50_000
MAX_Q = 50_000


def relabel(rng, par):
    """par[i] = parent of i for i >= 2 (par[0], par[1] unused); returns relabelled parents."""
    n = len(par) - 1
    perm = list(range(2, n + 1))
    rng.shuffle(perm)
    label = [0, 1] + perm
    new = [0] * (n + 1)
    for i in range(2, n + 1):
        new[label[i]] = label[par[i]]
    return new


def recursive_tree(rng, n):
    return [0, 0] + [rng.randint(1, i - 1) for i in range(2, n + 1)]


def thick_path(rng, n, width):
    return [0, 0] + [rng.randint(max(1, i - width), i - 1) for i in range(2, n + 1)]


def caterpillar(rng, n, spine):
    spine = min(spine, n)
    par = [0, 0] + [i - 1 for i in range(2, spine + 1)]
    par += [rng.randint(1, spine) for _ in range(spine + 1, n + 1)]
    return par


def heap_tree(n):
    return [0, 0] + [i // 2 for i in range(2, n + 1)]


def path(n):
    return [0, 0] + [i - 1 for i in range(2, n + 1)]


def queries(rng, par, q, ancestor_share=0.1, same_share=0.02):
    n = len(par) - 1
    out = []
    for _ in range(q):
        r = rng.random()
        u = rng.randint(1, n)
        if r < same_share:
            v = u
        elif r < same_share + ancestor_share:
            v = u
            for _ in range(rng.randint(0, 60)):
                if v == 1:
                    break
                v = par[v]
        else:
            v = rng.randint(1, n)
        if rng.random() < 0.5:
            u, v = v, u
        out.append((u, v))
    return out


def small(rng):
    n = rng.randint(1, 12)
    par = relabel(rng, recursive_tree(rng, n) if rng.random() < 0.5 else thick_path(rng, n, 2))
    return par, queries(rng, par, rng.randint(1, 10), 0.2, 0.1)


def edge(rng, seed):
    kind = seed % 8
    if kind == 0:
        return [0, 0], [(1, 1)]
    if kind == 1:
        par = [0, 0, 1]
        return par, [(1, 2), (2, 1), (2, 2), (1, 1)]
    if kind == 2:
        # a long path with a numbering that runs against depth
        n = 3000
        par = relabel(rng, path(n))
        return par, queries(rng, par, 300, 0.3, 0.05)
    if kind == 3:
        # star: every answer is 1 unless u == v
        n = rng.randint(2, 500)
        par = [0, 0] + [1] * (n - 1)
        return par, queries(rng, par, 200, 0.1, 0.2)
    if kind == 4:
        # the identity labelling: parent labels smaller than children (path + branches)
        n = 2000
        par = caterpillar(rng, n, 1500)
        return par, queries(rng, par, 300, 0.2, 0.05)
    if kind == 5:
        n = rng.randint(20, 200)
        par = relabel(rng, heap_tree(n))
        return par, queries(rng, par, 200, 0.5, 0.1)
    if kind == 6:
        # the deepest vertex against the root and its neighbours
        n = 4097
        par = relabel(rng, path(n))
        parents = set(par)
        deepest = [v for v in range(2, n + 1) if v not in parents][0]
        return par, [(deepest, 1), (1, deepest), (deepest, par[deepest]), (deepest, deepest)]
    n = rng.randint(50, 300)
    par = relabel(rng, recursive_tree(rng, n))
    return par, queries(rng, par, 300, 0.0, 0.0)


def bushy_spine(rng, n, spine):
    """A path of `spine` vertices with a random recursive forest hanging off it."""
    spine = min(spine, n)
    par = [0, 0] + [i - 1 for i in range(2, spine + 1)]
    par += [rng.randint(1, i - 1) for i in range(spine + 1, n + 1)]
    return par


def large(rng, seed):
    scale = rng.uniform(0.4, 1.0)
    n = int(MAX_N * scale)
    q = n // 2  # deep trees: the naive climb costs q * depth, keep it bounded
    kind = seed % 5
    if kind == 0:
        par = recursive_tree(rng, n)  # shallow: depth about e * ln n
    elif kind == 1:
        par = thick_path(rng, n, max(2, n // rng.randint(220, 280)))  # depth about 450-550
    elif kind == 2:
        par = caterpillar(rng, n, rng.randint(800, 1000))
    elif kind == 3:
        par = thick_path(rng, n, max(2, n // rng.randint(180, 240)))
    else:
        par = bushy_spine(rng, n, rng.randint(700, 900))
    par = relabel(rng, par)
    return par, queries(rng, par, q)


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        par, qs = small(rng)
    elif mode == "edge":
        par, qs = edge(rng, seed)
    elif mode == "large":
        par, qs = large(rng, seed)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    n = len(par) - 1
    lines = [str(n), " ".join(map(str, par[2:])), str(len(qs))]
    lines.extend(f"{u} {v}" for u, v in qs)
    print("\n".join(lines))


main()
