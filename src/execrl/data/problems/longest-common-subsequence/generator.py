"""Input generator for longest-common-subsequence: python generator.py MODE SEED."""

import math
import random
import string
import sys

MAX_T = 50_000
MAX_LEN = 2000
MAX_WORK = 5_000_000  # sum of |a| * |b|
LETTERS = string.ascii_lowercase


def rand_str(rng, n, alphabet):
    return "".join(rng.choice(alphabet) for _ in range(n))


def fill(rng, budget, pick_lengths, pick_alphabet):
    """Random cases until the |a|*|b| budget or the case limit is used up."""
    cases = []
    left = budget
    while len(cases) < MAX_T:
        n, m = pick_lengths()
        if n * m > left:
            m = left // n
            if m < 1:
                break
        alphabet = pick_alphabet()
        cases.append((rand_str(rng, n, alphabet), rand_str(rng, m, alphabet)))
        left -= n * m
    return cases


def small(rng):
    cases = []
    for _ in range(rng.randint(1, 5)):
        alphabet = LETTERS[: rng.choice([2, 3, 4, 26])]
        cases.append(
            (rand_str(rng, rng.randint(1, 8), alphabet), rand_str(rng, rng.randint(1, 8), alphabet))
        )
    return cases


def edge(rng, seed):
    kind = seed % 8
    if kind == 0:
        return [(rng.choice("ab"), rng.choice("ab")) for _ in range(rng.randint(1, 4))]
    if kind == 1:
        s = rand_str(rng, MAX_LEN, LETTERS)
        return [(s[:1000], s[:1000]), (s[:MAX_LEN], s[:500])]
    if kind == 2:
        return [
            (rand_str(rng, rng.randint(1, 50), "abc"), rand_str(rng, rng.randint(1, 50), "xyz"))
            for _ in range(5)
        ]
    if kind == 3:
        return [(rand_str(rng, 1000, "ab"), rand_str(rng, 1000, "ab"))]
    if kind == 4:
        # greedy traps: the first letter of a matches late in b
        cases = []
        for _ in range(10):
            body = rand_str(rng, rng.randint(2, 10), "abcd")
            cases.append(("z" + body, body + "z"))
        return cases
    if kind == 5:
        cases = [(rng.choice(LETTERS), rand_str(rng, MAX_LEN, "abc")) for _ in range(20)]
        cases += [(rand_str(rng, MAX_LEN, LETTERS), rng.choice(LETTERS)) for _ in range(20)]
        return cases
    if kind == 6:
        s = rand_str(rng, 800, LETTERS[:6])
        return [(s, s[::-1])]
    return [(rand_str(rng, rng.randint(1, 3), "ab"), rand_str(rng, rng.randint(1, 3), "abc"))
            for _ in range(MAX_T)]


def large(rng, seed):
    budget = int(MAX_WORK * rng.uniform(0.4, 1.0))
    kind = seed % 10
    if kind in (0, 5):
        return fill(rng, budget, lambda: (rng.randint(3, 20), rng.randint(3, 20)),
                    lambda: LETTERS)
    if kind in (1, 6):
        return fill(rng, budget, lambda: (rng.randint(5, 25), rng.randint(5, 25)),
                    lambda: "abcd")
    if kind in (2, 7):
        return fill(rng, budget, lambda: (rng.randint(10, 60), rng.randint(10, 60)),
                    lambda: LETTERS[: rng.randint(2, 26)])
    if kind in (3, 8):
        return fill(rng, budget, lambda: (rng.randint(20, 150), rng.randint(20, 150)),
                    lambda: LETTERS[: rng.randint(2, 26)])
    if kind == 4:

        def log_len():
            return int(math.exp(rng.uniform(0, math.log(MAX_LEN))))

        return fill(rng, budget, lambda: (log_len(), log_len()),
                    lambda: LETTERS[: rng.randint(2, 26)])
    return fill(rng, budget, lambda: (rng.randint(1000, MAX_LEN), rng.randint(1000, MAX_LEN)),
                lambda: rng.choice(["ab", "abcd", LETTERS]))


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        cases = small(rng)
    elif mode == "edge":
        cases = edge(rng, seed)
    elif mode == "large":
        cases = large(rng, seed)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    lines = [str(len(cases))]
    for a, b in cases:
        lines.append(a)
        lines.append(b)
    print("\n".join(lines))


main()
