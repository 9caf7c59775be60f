"""Input generator for anagram-groups: python generator.py MODE SEED."""

import random
import string
import sys

MAX_N = 80_000
MAX_LEN = 12
ALPHABET = string.ascii_lowercase


def word(rng, letters, lo, hi):
    return "".join(rng.choice(letters) for _ in range(rng.randint(lo, hi)))


def shuffled(rng, base):
    chars = list(base)
    rng.shuffle(chars)
    return "".join(chars)


def small(rng):
    n = rng.randint(1, 15)
    letters = ALPHABET[: rng.randint(2, 5)]
    return [word(rng, letters, 1, rng.randint(1, 4)) for _ in range(n)]


def edge(rng, seed):
    kind = seed % 8
    if kind == 0:
        return [word(rng, ALPHABET, 1, MAX_LEN)]
    if kind == 1:
        w = word(rng, ALPHABET, 1, MAX_LEN)
        return [w] * rng.randint(2, 50)
    if kind == 2:
        base = word(rng, "abc", MAX_LEN, MAX_LEN)
        return [shuffled(rng, base) for _ in range(rng.randint(2, 60))]
    if kind == 3:
        # two-letter words over the full alphabet: many equal letter sums, few anagrams
        return [word(rng, ALPHABET, 2, 2) for _ in range(300)]
    if kind == 4:
        # the group whose signature sorts last is the largest one
        words = [shuffled(rng, "xyzz") for _ in range(40)]
        words += [word(rng, "abcd", 1, 3) for _ in range(30)]
        rng.shuffle(words)
        return words
    if kind == 5:
        # same letter sets, different multiplicities
        return [rng.choice(["aab", "aba", "abb", "bab", "ab", "ba", "aabb"]) for _ in range(40)]
    if kind == 6:
        return [word(rng, ALPHABET, MAX_LEN, MAX_LEN) for _ in range(1000)]
    return [word(rng, "ab", 1, 3) for _ in range(2000)]


def large(rng, seed):
    n = int(MAX_N * rng.uniform(0.3, 1.0))
    kind = seed % 5
    if kind == 0:
        return [word(rng, ALPHABET, 1, MAX_LEN) for _ in range(n)]
    if kind == 1:
        return [word(rng, "abc", 1, MAX_LEN) for _ in range(n)]
    if kind == 2:
        return [word(rng, ALPHABET, MAX_LEN, MAX_LEN) for _ in range(n)]
    if kind == 3:
        base = word(rng, ALPHABET, MAX_LEN, MAX_LEN)
        return [shuffled(rng, base) for _ in range(n)]
    return [word(rng, "abcdef", 6, MAX_LEN) for _ in range(n)]


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        words = small(rng)
    elif mode == "edge":
        words = edge(rng, seed)
    elif mode == "large":
        words = large(rng, seed)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    print(len(words))
    print("\n".join(words))


main()
