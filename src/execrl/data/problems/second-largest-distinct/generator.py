"""Generator for second-largest-distinct: python generator.py MODE SEED."""

import random
import sys

MAX_T = 10**4
MAX_N = 80
MAX_TOTAL = 2 * 10**5
MAX_V = 10**9


def array(rng, n, lo, hi):
    return [rng.randint(lo, hi) for _ in range(n)]


def small(rng):
    cases = []
    for _ in range(rng.randint(1, 6)):
        n = rng.randint(1, 8)
        hi = rng.choice([1, 3, 5, 10, 100, MAX_V])
        cases.append(array(rng, n, 0, hi))
    return cases


def edge(rng, seed):
    case = seed % 8
    if case == 0:  # minimum sizes
        return [[0], [MAX_V], [7, 7], [3, 9], [9, 3], [0, 0], [0, 1], [1, 0]]
    if case == 1:  # all equal: no second value
        return [[v] * rng.randint(1, MAX_N) for v in (0, 1, 5, MAX_V, rng.randint(0, MAX_V))]
    if case == 2:  # the answer is 0
        out = []
        for _ in range(8):
            n = rng.randint(2, MAX_N)
            top = rng.randint(1, MAX_V)
            a = [rng.choice([0, top]) for _ in range(n)]
            a[rng.randrange(n)] = 0
            a[rng.randrange(n)] = top
            out.append(a)
        return out
    if case == 3:  # the maximum appears several times
        out = []
        for _ in range(8):
            n = rng.randint(3, MAX_N)
            a = array(rng, n, 0, MAX_V // 2)
            top = rng.randint(MAX_V // 2 + 1, MAX_V)
            for i in rng.sample(range(n), rng.randint(2, n - 1)):
                a[i] = top
            out.append(a)
        return out
    if case == 4:  # sorted increasing and decreasing, extreme values
        out = []
        for _ in range(4):
            a = sorted(array(rng, rng.randint(2, MAX_N), 0, MAX_V))
            out.append(a)
            out.append(a[::-1])
        out.append(list(range(MAX_V - MAX_N + 1, MAX_V + 1)))
        out.append([MAX_V - 1, MAX_V])
        return out
    if case == 5:  # the only smaller value is the last element
        out = []
        for _ in range(8):
            n = rng.randint(2, MAX_N)
            top = rng.randint(1, MAX_V)
            out.append([top] * (n - 1) + [rng.randint(0, top - 1)])
        return out
    if case == 6:  # the second largest appears only before the first maximum
        out = []
        for _ in range(8):
            n = rng.randint(2, MAX_N)
            a = array(rng, n, 0, MAX_V - 2)
            a.sort()
            a[-1] = MAX_V
            a[-2] = MAX_V - 1
            out.append(a)
        return out
    # case 7: many tiny cases with tiny values
    out = []
    for _ in range(MAX_T):
        out.append(array(rng, rng.randint(1, 4), 0, 2))
    return out


def large(rng, seed):
    budget = int(MAX_TOTAL * rng.uniform(0.3, 1.0))
    style = seed % 5
    out = []
    total = 0
    while total < budget and len(out) < MAX_T:
        n = min(budget - total, rng.randint(MAX_N // 2, MAX_N))
        if style == 0:  # wide random values
            a = array(rng, n, 0, MAX_V)
        elif style == 1:  # few distinct values, many repeats of the maximum
            a = array(rng, n, 0, rng.randint(1, 20))
        elif style == 2:  # sorted increasing
            a = sorted(array(rng, n, 0, MAX_V))
        elif style == 3:  # all distinct, shuffled
            a = rng.sample(range(MAX_V - 10**6, MAX_V + 1), n)
        else:
            a = array(rng, n, 0, rng.choice([10, 1000, MAX_V]))
        out.append(a)
        total += n
    return out


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        cases = small(rng)
    elif mode == "edge":
        cases = edge(rng, seed)
    else:
        cases = large(rng, seed)
    assert 1 <= len(cases) <= MAX_T and sum(map(len, cases)) <= MAX_TOTAL
    assert all(1 <= len(a) <= MAX_N and all(0 <= v <= MAX_V for v in a) for a in cases)
    lines = [str(len(cases))]
    for a in cases:
        lines.append(str(len(a)))
        lines.append(" ".join(map(str, a)))
    sys.stdout.write("\n".join(lines) + "\n")


main()
