import random
import sys

MAX_N = 100000
LIM = 10**9


def emit(iv):
    lines = [str(len(iv))]
    lines.extend(f"{l} {r}" for l, r in iv)
    sys.stdout.write("\n".join(lines) + "\n")


def rand_iv(rng, lo, hi, max_len):
    l = rng.randint(lo, hi)
    r = min(hi, l + rng.randint(0, max_len))
    return l, r


def small(rng):
    n = rng.randint(1, 10)
    span = rng.choice([5, 20, 100])
    lo = rng.choice([-span, 0])
    return [rand_iv(rng, lo, span, rng.choice([0, 3, span])) for _ in range(n)]


def edge(rng, seed):
    kind = seed % 10
    if kind == 0:  # one interval
        return [rand_iv(rng, -LIM, LIM, LIM)]
    if kind == 1:  # only points: answer 0
        n = rng.randint(1, 50)
        return [(x, x) for x in (rng.randint(-LIM, LIM) for _ in range(n))]
    if kind == 2:  # identical intervals
        n = rng.randint(2, 50)
        return [rand_iv(rng, -1000, 1000, 500)] * n
    if kind == 3:  # one big interval containing shorter ones
        n = rng.randint(3, 50)
        big = (-rng.randint(0, 100), rng.randint(100, 300))
        iv = [big] + [rand_iv(rng, big[0], big[1] - 50, 40) for _ in range(n - 1)]
        rng.shuffle(iv)
        return iv
    if kind == 4:  # negative coordinates only
        n = rng.randint(1, 50)
        return [rand_iv(rng, -LIM, -LIM // 2, 10**7) for _ in range(n)]
    if kind == 5:  # intervals crossing zero
        n = rng.randint(1, 30)
        iv = []
        for _ in range(n):
            l = -rng.randint(1, 1000)
            iv.append((l, max(l, rng.randint(-500, 1000))))
        return iv
    if kind == 6:  # touching chain
        n = rng.randint(2, 60)
        start = rng.randint(-1000, 1000)
        iv = [(start + i * 7, start + (i + 1) * 7) for i in range(n)]
        rng.shuffle(iv)
        return iv
    if kind == 7:  # whole coordinate range and friends
        n = rng.randint(1, 30)
        return [(-LIM, LIM)] + [rand_iv(rng, -LIM, LIM, LIM) for _ in range(n)]
    if kind == 8:  # disjoint, given in reverse order
        n = rng.randint(2, 60)
        xs = sorted(rng.sample(range(-10**6, 10**6), 2 * n))
        return [(xs[2 * i], xs[2 * i + 1]) for i in range(n)][::-1]
    # nested ladder: each interval inside the previous one
    n = rng.randint(2, 60)
    return [(i, 200 - i) for i in range(n)]


def large(rng, seed):
    n = rng.randint(MAX_N * 4 // 10, MAX_N)
    kind = seed % 8
    if kind == 0:  # nested ladder, shuffled
        iv = [(-LIM + i, LIM - i) for i in range(n)]
        rng.shuffle(iv)
        return iv
    if kind == 1:  # disjoint sorted points and short pieces
        xs = sorted(rng.sample(range(-LIM, LIM), 2 * n))
        return [(xs[2 * i], xs[2 * i + 1]) for i in range(n)]
    if kind == 2:  # long heavily overlapping intervals
        return [rand_iv(rng, -LIM, LIM, LIM // 2) for _ in range(n)]
    if kind == 3:  # touching chain, reversed
        return [(i * 1000, (i + 1) * 1000) for i in range(n)][::-1]
    avg = rng.choice([1000, 20000, 100000])
    return [rand_iv(rng, -LIM, LIM, avg) for _ in range(n)]


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        iv = small(rng)
    elif mode == "edge":
        iv = edge(rng, seed)
    else:
        iv = large(rng, seed)
    emit(iv)


main()
