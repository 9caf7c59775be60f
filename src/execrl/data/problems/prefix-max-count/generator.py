import random
import sys

MAX_N = 200_000
LIM = 10**9


def small(rng):
    n = rng.randint(1, 12)
    hi = rng.choice([3, 10, 100, LIM])
    lo = rng.choice([-hi, 0, 1])
    return [rng.randint(lo, hi) for _ in range(n)]


def edge(rng, case):
    if case == 0:  # single building, any sign
        return [rng.choice([-LIM, -5, 0, 7, LIM])]
    if case == 1:  # single building at the lowest height
        return [-LIM]
    if case == 2:  # all equal: only the first counts
        return [rng.choice([-3, 0, 4])] * rng.randint(2, 8)
    if case == 3:  # strictly increasing: everyone is visible, including the last
        start = rng.randint(-20, 20)
        return list(range(start, start + rng.randint(3, 9)))
    if case == 4:  # strictly decreasing
        start = rng.randint(-20, 20)
        return list(range(start, start - rng.randint(3, 9), -1))
    if case == 5:  # all negative
        return [rng.randint(-LIM, -1) for _ in range(rng.randint(3, 10))]
    if case == 6:  # lowest possible first value, then higher ones
        return [-LIM] + [rng.randint(-LIM, LIM) for _ in range(rng.randint(1, 6))]
    if case == 7:  # repeats of the running maximum
        return [5, 5, 3, 5, 7, 7, 2, 8, 8]
    if case == 8:  # extremes; the last one is a new maximum
        return [-LIM, 0, -LIM, LIM - 1, 3, LIM]
    # case 9: zero first, then negatives and a late positive
    return [0, -1, -7, 0, 2]


def large(rng, seed):
    n = rng.randint(int(MAX_N * 0.3), MAX_N)
    kind = seed % 7
    if kind == 0:  # strictly increasing: n visible buildings
        start = rng.randint(-LIM, -LIM + 1000)
        return list(range(start, start + n))
    if kind == 3:  # noisy upward trend: many records, many near-ties
        out, base = [], -LIM
        for _ in range(n):
            base += rng.randint(0, 6000)
            out.append(min(LIM, base + rng.randint(-3000, 3000)))
        return out
    if kind == 5:
        if seed % 2:  # all equal
            return [rng.randint(-LIM, LIM)] * n
        start = rng.randint(LIM - 1000, LIM)  # strictly decreasing
        return list(range(start, start - n, -1))
    return [rng.randint(-LIM, LIM) for _ in range(n)]


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        a = small(rng)
    elif mode == "edge":
        a = edge(rng, (seed - 1) % 10)
    else:
        a = large(rng, seed)
    sys.stdout.write(f"{len(a)}\n{' '.join(map(str, a))}\n")


main()
