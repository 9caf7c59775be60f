import random
import sys

MAX_N = 150_000
LIM = 10**4
K_LIM = 10**9


def emit(k, a):
    sys.stdout.write(f"{len(a)} {k}\n{' '.join(map(str, a))}\n")


def small(rng):
    n = rng.randint(1, 12)
    hi = rng.choice([2, 3, 10])
    lo = rng.choice([-hi, 0])
    a = [rng.randint(lo, hi) for _ in range(n)]
    if rng.random() < 0.7:  # a sum that actually occurs
        i = rng.randrange(n)
        j = rng.randint(i, n - 1)
        k = sum(a[i : j + 1])
    else:
        k = rng.randint(-5, 5)
    return k, a


def edge(rng, case):
    if case == 0:  # one element equal to k
        x = rng.choice([-LIM, -3, 5, LIM])
        return x, [x]
    if case == 1:  # all zeros, k = 0: every subarray counts
        return 0, [0] * rng.randint(3, 12)
    if case == 2:  # negative values, negative k
        return -3, [-1, -2, 1, -3, 0, -3, 2, -5]
    if case == 3:  # k out of reach
        return K_LIM, [rng.randint(-LIM, LIM) for _ in range(rng.randint(1, 10))]
    if case == 4:  # alternating +1 / -1, k = 0
        return 0, [1 if i % 2 == 0 else -1 for i in range(rng.randint(4, 11))]
    if case == 5:  # positives, k = the whole array's sum: the only match starts at position 1
        a = [rng.randint(1, 9) for _ in range(rng.randint(2, 8))]
        return sum(a), a
    if case == 6:  # lowest possible k
        return -K_LIM, [rng.randint(-LIM, LIM) for _ in range(rng.randint(1, 10))]
    if case == 7:  # extreme values cancelling out
        return 0, [LIM, -LIM, LIM, -LIM, 0, LIM]
    if case == 8:  # zeros inside, positive k
        return 3, [3, 0, 0, 1, 2, 0, 3, -3, 3]
    # case 9: single zero, k = 0
    return 0, [0]


def large(rng, seed):
    n = rng.randint(int(MAX_N * 0.3), MAX_N)
    kind = seed % 10
    if kind == 0:  # all zeros, k = 0: about n^2 / 2 subarrays (beyond 32 bits)
        return 0, [0] * n
    if kind == 3:  # alternating +1 / -1
        return rng.choice([0, 1, -1]), [1 if i % 2 else -1 for i in range(n)]
    if kind == 5:  # positive values (sliding-window friendly)
        a = [rng.randint(1, 100) for _ in range(n)]
        return rng.randint(100, 5000), a
    if kind == 7:  # wide values, k drawn from a real subarray
        a = [rng.randint(-LIM, LIM) for _ in range(n)]
        i = rng.randrange(n)
        return sum(a[i : i + rng.randint(1, 50)]), a
    if kind == 9:  # k unreachable
        return K_LIM, [rng.randint(-LIM, LIM) for _ in range(n)]
    hi = rng.choice([1, 5, 10, 100])
    return rng.randint(-2 * hi, 2 * hi), [rng.randint(-hi, hi) for _ in range(n)]


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        emit(*small(rng))
    elif mode == "edge":
        emit(*edge(rng, (seed - 1) % 10))
    else:
        emit(*large(rng, seed))


main()
