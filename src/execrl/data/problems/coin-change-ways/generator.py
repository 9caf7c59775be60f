"""Input generator for coin-change-ways: python generator.py MODE SEED."""

import random
import sys

MAX_N = 50
MAX_A = 50_000
MAX_C = 100_000


def emit(amount, coins):
    print(len(coins), amount)
    print(" ".join(map(str, coins)))


def small(rng):
    n = rng.randint(1, 5)
    coins = rng.sample(range(1, 21), n)
    return rng.randint(0, 30), coins


def edge(rng, seed):
    kind = seed % 8
    if kind == 0:
        return 0, rng.sample(range(1, MAX_C + 1), rng.randint(1, MAX_N))
    if kind == 1:
        amount = rng.randint(100, 1000)
        coins = rng.sample(range(amount // 3, amount), 4) + [amount]
        rng.shuffle(coins)
        return amount, coins
    if kind == 2:
        return MAX_A, [1]
    if kind == 3:
        amount = rng.randint(1, 1000)
        return amount, rng.sample(range(amount + 1, MAX_C + 1), rng.randint(1, 10))
    if kind == 4:
        coins = list(range(1, MAX_N + 1))
        rng.shuffle(coins)
        return MAX_A, coins
    if kind == 5:
        c = rng.randint(1, 500)
        return c * rng.randint(1, 100), [c]
    if kind == 6:
        return rng.randint(5, 12), [1, 2]
    return MAX_A, [MAX_A, MAX_A - 1, 1, MAX_C]


def large(rng, seed):
    n = rng.randint(MAX_N // 2, MAX_N)
    amount = int(MAX_A * rng.uniform(0.3, 1.0))
    kind = seed % 5
    if kind == 0:
        coins = rng.sample(range(1, amount + 1), n)
    elif kind == 1:
        coins = rng.sample(range(1, 201), n)
    elif kind == 2:
        # mostly usable coins plus a few larger than the amount
        coins = rng.sample(range(1, amount + 1), n - 3) + rng.sample(range(amount + 1, MAX_C + 1), 3)
    elif kind == 3:
        coins = list(range(1, n + 1))
        rng.shuffle(coins)
    else:
        coins = rng.sample(range(1, max(2, amount // 4)), n)
    return amount, coins


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        amount, coins = small(rng)
    elif mode == "edge":
        amount, coins = edge(rng, seed)
    elif mode == "large":
        amount, coins = large(rng, seed)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    emit(amount, coins)


main()
