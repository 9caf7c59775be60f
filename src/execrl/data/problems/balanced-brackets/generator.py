"""Generator for balanced-brackets: python generator.py MODE SEED."""

import random
import sys

OPEN = "([{"
CLOSE = {"(": ")", "[": "]", "{": "}"}
MAX_LEN = 5000
MAX_TOTAL = 5 * 10**5


def balanced(rng, pairs, p_open=0.5, types=OPEN):
    """A random balanced string with `pairs` pairs; p_open > 0.5 makes it deeper."""
    out, stack = [], []
    n = 2 * pairs
    for i in range(n):
        remaining = n - i
        if stack and (len(stack) == remaining or rng.random() >= p_open):
            out.append(CLOSE[stack.pop()])
        else:
            c = rng.choice(types)
            stack.append(c)
            out.append(c)
    return "".join(out)


def deep(rng, pairs, types=OPEN):
    """Fully nested: pairs openers then their closers."""
    opens = [rng.choice(types) for _ in range(pairs)]
    return "".join(opens) + "".join(CLOSE[c] for c in reversed(opens))


def corrupt(rng, s):
    """Break a balanced string in one of several ways (the result is never balanced)."""
    s = list(s)
    kind = rng.randrange(5)
    i = rng.randrange(len(s))
    if kind == 0:  # change one bracket's type
        same_side = OPEN if s[i] in OPEN else ")]}"
        s[i] = rng.choice([c for c in same_side if c != s[i]])
    elif kind == 1:  # flip one bracket's direction
        s[i] = CLOSE[s[i]] if s[i] in OPEN else {v: k for k, v in CLOSE.items()}[s[i]]
    elif kind == 2:  # drop one character (odd length)
        del s[i]
        if not s:
            s = [")"]
    elif kind == 3:  # swap two closers of different type (crossing)
        closers = [j for j, c in enumerate(s) if c not in OPEN]
        a, b = rng.sample(closers, 2) if len(closers) >= 2 else (i, i)
        s[a], s[b] = s[b], s[a]
        if "".join(s) and is_balanced(s):
            s[i] = "(" if s[i] != "(" else "["
    else:  # rotate: a closer moves to the front
        s = s[i:] + s[:i]
        if is_balanced(s):
            s = s[1:] + s[:1]
            if is_balanced(s):
                s.append("(")
    if len(s) > MAX_LEN:
        s = s[:MAX_LEN]
    return "".join(s)


def is_balanced(s):
    st = []
    for c in s:
        if c in OPEN:
            st.append(c)
        elif not st or CLOSE[st.pop()] != c:
            return False
    return not st


def maybe_corrupt(rng, s, p=0.5):
    return corrupt(rng, s) if rng.random() < p else s


def small(rng):
    t = rng.randint(1, 12)
    out = []
    for _ in range(t):
        k = rng.randrange(6)
        if k == 0:
            n = rng.randint(1, 8)
            out.append("".join(rng.choice("()[]{}") for _ in range(n)))
        elif k <= 3:
            s = balanced(rng, rng.randint(1, 8), rng.uniform(0.3, 0.7))
            out.append(maybe_corrupt(rng, s))
        else:
            s = deep(rng, rng.randint(1, 6))
            out.append(maybe_corrupt(rng, s))
    return out


def edge(rng, seed):
    case = seed % 8
    if case == 0:  # single characters and minimal strings
        return ["(", ")", "[", "]", "{", "}", "()", ")(", "([)]", "((", "))", "[]{}()"]
    if case == 1:  # crossing pairs that per-type counters accept
        base = ["([)]", "{[}]", "([{)]}", "[(])", "(([]{)})"]
        more = []
        for _ in range(20):
            a = balanced(rng, rng.randint(1, 20))
            b = balanced(rng, rng.randint(1, 20))
            more.append("(" + a + "[" + b + ")" + "]")
        return base + more
    if case == 2:  # leftover openers: every prefix is fine, the end is not
        out = ["(", "((", "[{(", "(()", "{[]"]
        for _ in range(20):
            out.append(balanced(rng, rng.randint(1, 30)) + rng.choice(OPEN) * rng.randint(1, 3))
        return out
    if case == 3:  # unmatched closers: an extra closer that a lax stack skips
        out = [")", "())", "]]", "()]", "{}}", "(()))(()"]
        for _ in range(20):
            s = balanced(rng, rng.randint(1, 30))
            i = rng.randint(0, len(s))
            out.append(s[:i] + rng.choice(")]}") + s[i:])
        return out
    if case == 4:  # very deep nesting, balanced and broken deep inside
        out = []
        for _ in range(6):
            s = deep(rng, rng.randint(1200, MAX_LEN // 2))
            out.append(s)
            mid = len(s) // 2
            bad = list(s)
            bad[mid] = {")": "]", "]": "}", "}": ")"}[bad[mid]]
            out.append("".join(bad))
        return out
    if case == 5:  # maximum length strings, one type only
        c = rng.choice(OPEN)
        return [
            balanced(rng, MAX_LEN // 2, 0.6, types=c),
            deep(rng, MAX_LEN // 2, types=c),
            (c + CLOSE[c]) * (MAX_LEN // 2),
            c * MAX_LEN,
            CLOSE[c] * MAX_LEN,
        ]
    if case == 6:  # deep crossing: counters balanced, nesting deeper than 1000
        out = []
        for _ in range(4):
            s = list(deep(rng, rng.randint(1100, MAX_LEN // 2)))
            n = len(s)
            closers = list(range(n // 2, n))
            a, b = rng.sample(closers, 2)
            while s[a] == s[b]:
                a, b = rng.sample(closers, 2)
            s[a], s[b] = s[b], s[a]
            out.append("".join(s))
            out.append(deep(rng, rng.randint(1000, MAX_LEN // 2)))
        return out
    # case 7: many tiny strings
    return [maybe_corrupt(rng, balanced(rng, rng.randint(1, 3))) for _ in range(3000)]


def large(rng, seed):
    budget = int(MAX_TOTAL * rng.uniform(0.3, 1.0))
    style = seed % 4
    deep_share = rng.uniform(0.15, 0.25)  # of the characters, in (almost) fully nested strings
    out = []
    total = 0
    while total < budget and len(out) < 10000:
        room = min(MAX_LEN, budget - total)
        if room < 2:
            break
        pairs = rng.randint(max(1, room // 4), max(1, room // 2))
        if rng.random() < deep_share:
            pairs = max(1, min(room // 2, rng.randint(MAX_LEN // 3, MAX_LEN // 2)))
            if rng.random() < 0.5:
                s = deep(rng, pairs)  # adversarial for pair-removal loops
            else:
                s = balanced(rng, pairs, 0.9)
        elif style == 0:
            s = balanced(rng, pairs, 0.5)
        elif style == 1:
            s = balanced(rng, pairs, rng.uniform(0.55, 0.6))
        else:
            s = balanced(rng, pairs, rng.uniform(0.5, 0.6))
        if rng.random() < 0.5:
            # break it near the end, so a scan has to read (almost) everything
            k = len(s) - 1 - rng.randrange(min(len(s), 20))
            s = s[:k] + rng.choice("([{)]}".replace(s[k], "")) + s[k + 1 :]
        out.append(s)
        total += len(s)
    return out


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        strings = small(rng)
    elif mode == "edge":
        strings = edge(rng, seed)
    else:
        strings = large(rng, seed)
    strings = [s for s in strings if 1 <= len(s) <= MAX_LEN]
    assert 1 <= len(strings) <= 10000 and sum(map(len, strings)) <= MAX_TOTAL
    sys.stdout.write(f"{len(strings)}\n" + "\n".join(strings) + "\n")


main()
