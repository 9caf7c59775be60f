import random
import sys

MAX_N = 100
MAX_W = 50000
MAX_V = 10**6


def emit(cap, items):
    lines = [f"{len(items)} {cap}"]
    lines.extend(f"{w} {v}" for w, v in items)
    sys.stdout.write("\n".join(lines) + "\n")


def small(rng):
    n = rng.randint(1, 8)
    cap = rng.randint(1, 30)
    vmax = rng.choice([10, 1000, MAX_V])
    return cap, [(rng.randint(1, 20), rng.randint(0, vmax)) for _ in range(n)]


def edge(rng, seed):
    kind = seed % 10
    if kind == 0:  # one item that fits exactly
        cap = rng.randint(1, MAX_W)
        return cap, [(cap, rng.randint(1, MAX_V))]
    if kind == 1:  # nothing fits
        cap = rng.randint(1, 100)
        n = rng.randint(1, 20)
        return cap, [(rng.randint(cap + 1, MAX_W), rng.randint(0, MAX_V)) for _ in range(n)]
    if kind == 2:  # capacity 1
        n = rng.randint(1, 20)
        return 1, [(rng.randint(1, 3), rng.randint(0, 100)) for _ in range(n)]
    if kind == 3:  # many maximal values: totals near 10^8
        n = MAX_N
        cap = rng.randint(100, 2000)
        return cap, [(rng.randint(1, 40), MAX_V - rng.randint(0, 10)) for _ in range(n)]
    if kind == 4:  # one cheap, valuable item worth repeating (if repeats were allowed)
        cap = rng.randint(20, 200)
        items = [(rng.randint(1, 5), 1000)]
        items += [(rng.randint(cap // 2, cap), rng.randint(100, 900)) for _ in range(rng.randint(1, 6))]
        rng.shuffle(items)
        return cap, items
    if kind == 5:  # greedy trap: best ratio item blocks two items that fill exactly
        half = rng.randint(5, 1000)
        cap = 2 * half
        return cap, [(half + 1, 3 * half), (half, 2 * half), (half, 2 * half)]
    if kind == 6:  # all items identical
        n = rng.randint(1, 50)
        w, v = rng.randint(1, 50), rng.randint(0, MAX_V)
        return rng.randint(1, 500), [(w, v)] * n
    if kind == 7:  # all values zero
        n = rng.randint(1, 30)
        return rng.randint(1, 1000), [(rng.randint(1, 100), 0) for _ in range(n)]
    if kind == 8:  # the optimum must fill the capacity exactly
        n = rng.randint(2, 12)
        ws = [rng.randint(1, 30) for _ in range(n)]
        cap = sum(ws[: n // 2 + 1])
        return cap, [(w, 10 * w) for w in ws]
    # maximum sizes in a tiny instance shape: big weights and values
    n = rng.randint(2, 10)
    return MAX_W, [(rng.randint(1, MAX_W), rng.randint(0, MAX_V)) for _ in range(n)]


def large(rng, seed):
    n = rng.randint(MAX_N * 6 // 10, MAX_N)
    cap = rng.randint(MAX_W // 2, MAX_W)
    kind = seed % 6
    if kind == 0:  # strongly correlated: value = weight + constant
        items = []
        for _ in range(n):
            w = rng.randint(1, cap // 4)
            items.append((w, min(MAX_V, 10 * w + 5000)))
        return cap, items
    if kind == 1:  # small weights, many items fit
        return cap, [(rng.randint(1, cap // 20), rng.randint(0, MAX_V)) for _ in range(n)]
    if kind == 2:  # all identical small items
        w = rng.randint(1, 50)
        return cap, [(w, rng.randint(1, MAX_V))] * n
    if kind == 3:  # subset-sum like: value equals weight
        return cap, [(w, w) for w in (rng.randint(1, cap // 2) for _ in range(n))]
    # uncorrelated random
    wmax = rng.choice([cap // 3, cap // 10])
    return cap, [(rng.randint(1, wmax), rng.randint(0, MAX_V)) for _ in range(n)]


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        cap, items = small(rng)
    elif mode == "edge":
        cap, items = edge(rng, seed)
    else:
        cap, items = large(rng, seed)
    emit(cap, items)


main()
