"""Generator for longest-palindromic-substring: python generator.py MODE SEED."""

import random
import string
import sys

MAX_N = 55000
LETTERS = string.ascii_lowercase


def rand(rng, n, alphabet):
    return "".join(rng.choice(alphabet) for _ in range(n))


def thue_morse(n, a="a", b="b"):
    bits = [0]
    while len(bits) < n:
        bits += [1 - x for x in bits]
    return "".join(b if x else a for x in bits[:n])


def fibonacci_word(n, a="a", b="b"):
    x, y = a, a + b
    while len(y) < n:
        x, y = y, y + x
    return y[:n]


def palindrome(rng, n, alphabet):
    half = rand(rng, n // 2, alphabet)
    mid = rng.choice(alphabet) if n % 2 else ""
    return half + mid + half[::-1]


def embed(rng, n, alphabet, length):
    """Random text of length n with a palindrome of the given length somewhere inside."""
    length = min(length, n)
    p = palindrome(rng, length, alphabet)
    left = rng.randint(0, n - length)
    return rand(rng, left, alphabet) + p + rand(rng, n - length - left, alphabet)


def small(rng):
    n = rng.randint(1, 12)
    return rand(rng, n, rng.choice(["a", "ab", "ab", "abc", "abc", LETTERS]))


def edge(rng, seed):
    case = seed % 8
    if case == 0:  # a single letter
        return rng.choice(LETTERS)
    if case == 1:  # one letter repeated
        return rng.choice(LETTERS) * rng.randint(1000, MAX_N)
    if case == 2:  # Thue-Morse: defeats polynomial hashing modulo 2^64
        n = rng.randint(20000, MAX_N)
        a, b = rng.sample(LETTERS, 2)
        return thue_morse(n, a, b)
    if case == 3:  # the longest palindrome is a prefix (or a suffix) of the string
        n = rng.randint(50, 3000)
        k = rng.randint(n // 2, n - 5)
        s = palindrome(rng, k, "ab") + rand(rng, n - k, "cdefgh")
        return s if rng.random() < 0.5 else s[::-1]
    if case == 4:  # the answer has even length
        n = rng.randint(100, 5000)
        return embed(rng, n, "abcdefghij", 2 * rng.randint(10, n // 4))
    if case == 5:  # no palindrome longer than one letter
        n = rng.randint(2, 26)
        cyc = "".join(rng.sample(LETTERS, 3))
        return rng.choice(["".join(rng.sample(LETTERS, n)), (cyc * 20000)[: rng.randint(3, MAX_N)]])
    if case == 6:  # the whole string is a palindrome
        return palindrome(rng, rng.randint(2, MAX_N), rng.choice(["ab", "abc", LETTERS]))
    # case 7: nested and overlapping palindromes over two letters (Manacher mirror cases)
    n = rng.randint(200, 2000)
    unit = palindrome(rng, rng.randint(3, 9), "ab")
    return "".join(unit if rng.random() < 0.7 else rand(rng, len(unit), "ab") for _ in range(n // len(unit)))


def large(rng, seed):
    n = rng.randint(int(MAX_N * 0.75), MAX_N)
    style = seed % 5
    if style == 0:  # random lowercase text
        return rand(rng, n, LETTERS)
    if style == 1:  # random over two or three letters
        return rand(rng, n, rng.choice(["ab", "abc"]))
    if style == 2:  # a long palindrome hidden in random text
        return embed(rng, n, rng.choice(["ab", "abc", "abcd"]), rng.randint(n // 10, n // 2))
    if style == 3:  # structured words
        a, b = rng.sample(LETTERS, 2)
        kind = (seed // 5) % 3
        if kind == 0:
            return thue_morse(n, a, b)
        if kind == 1:
            return fibonacci_word(n, a, b)
        return ((a + b) * n)[:n]
    # style 4: runs of equal letters, or one letter with a few others sprinkled in
    if rng.random() < 0.5:
        out = []
        while len(out) < n:
            out += [rng.choice("abc")] * rng.randint(1, 60)
        return "".join(out[:n])
    s = ["a"] * n
    for _ in range(rng.randint(1, 5)):
        s[rng.randrange(n)] = "b"
    return "".join(s)


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        s = small(rng)
    elif mode == "edge":
        s = edge(rng, seed)
    else:
        s = large(rng, seed)
    assert 1 <= len(s) <= MAX_N and set(s) <= set(LETTERS)
    sys.stdout.write(f"{len(s)}\n{s}\n")


main()
