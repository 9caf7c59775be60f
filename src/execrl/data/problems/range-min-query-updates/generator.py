"""Input generator for range-min-query-updates: python generator.py MODE SEED."""

import random
import sys

MAX_N = 40_000
MAX_Q = 40_000
MAX_A = 10**9


def emit(a, ops):
    lines = [f"{len(a)} {len(ops)}", " ".join(map(str, a))]
    lines += [f"{t} {u} {w}" for t, u, w in ops]
    sys.stdout.write("\n".join(lines) + "\n")


def random_ops(rng, n, q, p_update, value, span=None):
    """q operations; ranges of length about `span` (random when None)."""
    ops = []
    for _ in range(q):
        if rng.random() < p_update:
            ops.append((1, rng.randint(1, n), value()))
        elif span is None:
            l, r = sorted((rng.randint(1, n), rng.randint(1, n)))
            ops.append((2, l, r))
        else:
            length = max(1, min(n, span + rng.randint(-span // 10, span // 10)))
            l = rng.randint(1, n - length + 1)
            ops.append((2, l, l + length - 1))
    if all(t == 1 for t, _, _ in ops):  # at least one query
        ops[-1] = (2, 1, n)
    return ops


def small(rng):
    n, q = rng.randint(1, 10), rng.randint(1, 10)
    lo = rng.choice([-20, -5, 0])
    value = lambda: rng.randint(lo, lo + 25)  # noqa: E731
    a = [value() for _ in range(n)]
    return a, random_ops(rng, n, q, rng.choice([0.2, 0.5]), value)


def edge(rng, seed):
    case = seed % 8
    if case == 0:  # n = 1
        value = lambda: rng.randint(-MAX_A, MAX_A)  # noqa: E731
        return [value()], random_ops(rng, 1, rng.randint(1, 50), 0.5, value)
    if case == 1:  # single-element queries only (and updates)
        n = rng.randint(50, 300)
        value = lambda: rng.randint(-1000, 1000)  # noqa: E731
        a = [value() for _ in range(n)]
        ops = [
            (1, rng.randint(1, n), value()) if rng.random() < 0.3 else (2, i, i)
            for i in (rng.randint(1, n) for _ in range(300))
        ]
        return a, ops + [(2, 1, 1)]
    if case == 2:  # updates that raise the current minimum, each followed by queries
        n = rng.randint(20, 300)
        a = [rng.randint(0, 1000) for _ in range(n)]
        cur = a[:]
        ops = []
        for _ in range(100):
            i = min(range(n), key=cur.__getitem__)
            cur[i] = rng.randint(2000, 3000)
            ops.append((1, i + 1, cur[i]))
            ops.append((2, 1, n))
            l, r = sorted((rng.randint(1, n), rng.randint(1, n)))
            ops.append((2, l, r))
        return a, ops
    if case == 3:  # full-range queries, values assigned in decreasing order
        n = rng.randint(100, 2000)
        a = [rng.randint(0, MAX_A) for _ in range(n)]
        ops, v = [], 0
        for _ in range(500):
            v -= rng.randint(1, 1000)
            ops.append((1, rng.randint(1, n), v))
            ops.append((2, 1, n))
        return a, ops
    if case == 4:  # the last element is the minimum: every query ends there
        n = rng.randint(50, 1000)
        a = [rng.randint(0, MAX_A) for _ in range(n - 1)] + [-MAX_A]
        return a, [(2, rng.randint(1, n), n) for _ in range(200)]
    if case == 5:  # all equal
        n = rng.randint(50, 1000)
        v = rng.randint(-MAX_A, MAX_A)
        return [v] * n, random_ops(rng, n, 300, 0.3, lambda: v)
    if case == 6:  # extreme values only
        n = rng.randint(50, 1000)
        value = lambda: rng.choice([-MAX_A, MAX_A])  # noqa: E731
        return [value() for _ in range(n)], random_ops(rng, n, 500, 0.4, value)
    # case 7: short ranges whose neighbourhood holds a smaller value
    n = rng.randint(500, 2000)
    a = [rng.randint(-MAX_A, MAX_A) for _ in range(n)]
    return a, random_ops(rng, n, 1000, 0.2, lambda: rng.randint(-MAX_A, MAX_A), span=3)


def large(rng, seed):
    n = rng.randint(MAX_N * 3 // 10, MAX_N)
    q = rng.randint(MAX_Q * 3 // 10, MAX_Q)
    value = lambda: rng.randint(-MAX_A, MAX_A)  # noqa: E731
    kind = seed % 10
    if kind == 0:  # structured: mostly long queries
        a = [value() for _ in range(n)]
        return a, random_ops(rng, n, q, 0.2, value, span=n * 3 // 4)
    if kind == 1:  # structured: each update sets a new overall minimum (full propagation)
        a = [rng.randint(0, MAX_A) for _ in range(n)]
        ops, v = [], 0
        for _ in range(q):
            if rng.random() < 0.7:
                v -= rng.randint(1, MAX_A // (2 * MAX_Q))
                ops.append((1, rng.randint(1, n), v))
            else:
                l, r = sorted((rng.randint(1, n), rng.randint(1, n)))
                ops.append((2, l, r))
        return a, ops + [(2, 1, n)]
    if kind == 2:  # structured: sorted initial array
        a = sorted(value() for _ in range(n))
        return a, random_ops(rng, n, q, 0.5, value)
    if kind == 3:  # structured: all equal initial array, short queries
        a = [value()] * n
        return a, random_ops(rng, n, q, 0.5, value, span=rng.randint(1, 100))
    # random mix
    a = [value() for _ in range(n)]
    return a, random_ops(rng, n, q, rng.choice([0.3, 0.5, 0.7]), value)


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed * 7919 + {"small": 1, "edge": 2, "large": 3}[mode])
    if mode == "small":
        a, ops = small(rng)
    elif mode == "edge":
        a, ops = edge(rng, seed)
    else:
        a, ops = large(rng, seed)
    emit(a, ops)


if __name__ == "__main__":
    main()
