import random
import string
import sys

MAX_LEN = 1000
LETTERS = string.ascii_lowercase


def rand_str(rng, length, alphabet):
    return "".join(rng.choice(alphabet) for _ in range(length))


def mutate(rng, s, edits, alphabet):
    s = list(s)
    for _ in range(edits):
        op = rng.randrange(3)
        pos = rng.randint(0, len(s))
        if op == 0 or not s:
            s.insert(pos, rng.choice(alphabet))
        elif op == 1 and pos < len(s):
            del s[pos]
        elif pos < len(s):
            s[pos] = rng.choice(alphabet)
    return "".join(s)


def small(rng):
    alphabet = rng.choice(["ab", "abc", "xyz", LETTERS])
    n = rng.randint(0, 8)
    m = n if rng.random() < 0.35 else rng.randint(0, 8)
    s = rand_str(rng, n, alphabet)
    if rng.random() < 0.3:
        return s, mutate(rng, s, rng.randint(1, 3), alphabet)
    return s, rand_str(rng, m, alphabet)


def edge(rng, case):
    if case == 0:
        return "", ""
    if case == 1:
        return "", rand_str(rng, rng.randint(1, 6), LETTERS)
    if case == 2:
        return rand_str(rng, rng.randint(1, 6), LETTERS), ""
    if case == 3:  # identical
        s = rand_str(rng, rng.randint(1, 10), "abc")
        return s, s
    if case == 4:  # runs of one letter: prefix and suffix overlap
        return "a" * rng.randint(2, 6), "a" * rng.randint(1, 1)
    if case == 5:  # equal length rotation: a shift beats substitutions
        s = rand_str(rng, rng.randint(5, 9), LETTERS)
        return s, s[1:] + s[0]
    if case == 6:  # disjoint alphabets
        return "a" * rng.randint(1, 5), "b" * rng.randint(1, 7)
    if case == 7:  # common prefix "ab" and common suffix "ab" overlap in t
        return "abcab", "ab"
    if case == 8:  # equal lengths, answer 2 while 2k positions differ
        k = rng.randint(3, 6)
        return "ab" * k, "ba" * k
    # case 9: one letter repeated, at the length limit
    c = rng.choice(LETTERS)
    return c * MAX_LEN, c * (MAX_LEN - rng.randint(1, 5))


def large(rng, seed):
    n = rng.randint(int(MAX_LEN * 0.3), MAX_LEN)
    m = rng.randint(int(MAX_LEN * 0.3), MAX_LEN)
    kind = seed % 6
    if kind == 0:  # similar strings: a few hundred edits apart
        s = rand_str(rng, n, LETTERS)
        return s, mutate(rng, s, rng.randint(5, 200), LETTERS)
    if kind == 1:  # binary alphabet
        return rand_str(rng, n, "ab"), rand_str(rng, m, "ab")
    if kind == 2:  # disjoint alphabets: every cell is a mismatch
        return rand_str(rng, n, "abc"), rand_str(rng, m, "xyz")
    if kind == 3:  # one repeated letter against random text
        return "e" * n, rand_str(rng, m, "eeeabc")
    if kind == 4:  # equal lengths
        return rand_str(rng, n, "abcd"), rand_str(rng, n, "abcd")
    return rand_str(rng, n, LETTERS), rand_str(rng, m, LETTERS)


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        s, t = small(rng)
    elif mode == "edge":
        s, t = edge(rng, (seed - 1) % 10)
    else:
        s, t = large(rng, seed)
    sys.stdout.write(f"{s}\n{t}\n")


main()
