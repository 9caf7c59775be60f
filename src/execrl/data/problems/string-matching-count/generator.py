"""Generator for string-matching-count: python generator.py MODE SEED."""

import random
import string
import sys

MAX_LEN = 300000
LETTERS = string.ascii_lowercase


def rand(rng, n, alphabet):
    return "".join(rng.choice(alphabet) for _ in range(n))


def thue_morse(k, a="a", b="b"):
    bits = [0]
    for _ in range(k):
        bits += [1 - x for x in bits]
    return "".join(b if x else a for x in bits)


def fibonacci_word(n, a="a", b="b"):
    x, y = a, a + b
    while len(y) < n:
        x, y = y, y + x
    return y[:n]


def plant(rng, text, pattern, copies):
    """Overwrite `copies` random windows of text with pattern (they may overlap)."""
    t = list(text)
    m = len(pattern)
    for _ in range(copies):
        if m > len(t):
            break
        i = rng.randint(0, len(t) - m)
        t[i : i + m] = pattern
    return "".join(t)


def small(rng):
    alphabet = rng.choice(["a", "ab", "ab", "abc", LETTERS])
    text = rand(rng, rng.randint(1, 15), alphabet)
    if rng.random() < 0.5 and len(text) >= 1:
        i = rng.randrange(len(text))
        pattern = text[i : i + rng.randint(1, 4)]
    else:
        pattern = rand(rng, rng.randint(1, 4), alphabet)
    return text, pattern


def edge(rng, seed):
    case = seed % 8
    if case == 0:  # the pattern is longer than the text
        text = rand(rng, rng.randint(1, 50), "ab")
        return text, text + rand(rng, rng.randint(1, 5), "ab")
    if case == 1:  # equal lengths: the whole text, or almost
        text = rand(rng, rng.randint(1, 1000), "abc")
        if rng.random() < 0.5:
            return text, text
        p = list(text)
        p[rng.randrange(len(p))] = "z"
        return text, "".join(p)
    if case == 2:  # occurrences at the very start and the very end
        pattern = rand(rng, rng.randint(2, 8), "xyz")
        middle = rand(rng, rng.randint(10, 2000), "abcd")
        return pattern + middle + pattern, pattern
    if case == 3:  # heavily overlapping occurrences
        unit = rng.choice(["a", "ab", "aab", "abaab"])
        pattern = (unit * 10)[: rng.randint(len(unit) + 1, 3 * len(unit) + 1)]
        text = unit * rng.randint(100, 5000)
        return text, pattern
    if case == 4:  # Thue-Morse blocks: equal polynomial hashes modulo 2^64, different strings
        k = rng.choice([10, 11, 12])
        a, b = rng.sample(LETTERS, 2)
        block = thue_morse(k, a, b)
        flipped = thue_morse(k, b, a)
        text = rand(rng, 40000, "cdef")
        text = plant(rng, text, flipped, rng.randint(3, 8))
        text = plant(rng, text, block, rng.randint(0, 2))
        return text, block
    if case == 5:  # one letter everywhere
        c = rng.choice(LETTERS)
        n = rng.randint(1, MAX_LEN)
        return c * n, c * rng.randint(1, min(n, 20))
    if case == 6:  # partial matches that restart inside themselves (aab in aaab)
        pattern = "a" * rng.randint(2, 6) + "b"
        text = "".join(
            "a" * rng.randint(1, len(pattern) + 2) + "b" * rng.randint(1, 2) for _ in range(2000)
        )
        return text, pattern
    # case 7: long random text, absent pattern
    text = rand(rng, rng.randint(1000, MAX_LEN), "abc")
    return text, rand(rng, rng.randint(1, 30), "xyz")


def large(rng, seed):
    style = seed % 5
    if style in (0, 4):  # random texts: keep them a bit shorter
        n = rng.randint(int(MAX_LEN * 0.6), int(MAX_LEN * 0.85))
    else:
        n = rng.randint(int(MAX_LEN * 0.75), MAX_LEN)
    if style == 0:  # random small alphabet, short pattern with many (overlapping) hits
        alphabet = rng.choice(["abc", "abcd"])
        text = rand(rng, n, alphabet)
        start = rng.randrange(n - 20)
        return text, text[start : start + rng.randint(3, 12)]
    if style == 1:  # random text, long pattern planted several times
        text = rand(rng, n, rng.choice(["abcd", LETTERS]))
        pattern = rand(rng, rng.randint(n // 50, n // 5), "abcd")
        return plant(rng, text, pattern, rng.randint(1, 20)), pattern
    if style == 2:  # periodic text with rare defects, long periodic pattern
        unit = rand(rng, rng.randint(2, 6), "ab")
        text = list((unit * (n // len(unit) + 1))[:n])
        for _ in range(rng.randint(0, 2)):
            text[rng.randrange(n)] = "c"
        m = rng.randint(n // 10, n // 3)
        return "".join(text), (unit * (m // len(unit) + 1))[:m]
    if style == 3:  # one letter, or one letter with a few others
        c = rng.choice(LETTERS)
        text = [c] * n
        for _ in range(rng.randint(0, 3)):
            text[rng.randrange(n)] = "z" if c != "z" else "y"
        m = rng.choice([1, rng.randint(2, 100), rng.randint(n // 4, n // 2)])
        return "".join(text), c * m
    a, b = rng.sample(LETTERS, 2)
    if (seed // 5) % 2 == 0:  # style 4: Fibonacci word with one of its own prefixes
        text = fibonacci_word(n, a, b)
        return text, text[: rng.randint(5, n // 3)]
    # style 4, odd rounds: Thue-Morse blocks and their complements in random text
    k = rng.randint(10, 13)
    block, flipped = thue_morse(k, a, b), thue_morse(k, b, a)
    text = rand(rng, n, rng.choice(["abcd", LETTERS]))
    text = plant(rng, text, flipped, rng.randint(5, 30))
    return plant(rng, text, block, rng.randint(5, 30)), block


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        text, pattern = small(rng)
    elif mode == "edge":
        text, pattern = edge(rng, seed)
    else:
        text, pattern = large(rng, seed)
    assert 1 <= len(text) <= MAX_LEN and 1 <= len(pattern) <= MAX_LEN
    assert set(text) <= set(LETTERS) and set(pattern) <= set(LETTERS)
    sys.stdout.write(f"{text}\n{pattern}\n")


main()
