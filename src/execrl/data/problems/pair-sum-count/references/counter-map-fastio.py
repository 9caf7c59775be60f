import sys
from collections import Counter
from itertools import repeat
from operator import mul, sub


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    cnt = Counter(map(int, data[2 : 2 + n]))
    # sum over values v of cnt[v] * cnt[k - v] counts ordered pairs (i, j), i != j, plus
    # the pairs (i, i) where 2 * a_i = k; all of it at C speed, no Python-level loop.
    complements = map(cnt.get, map(sub, repeat(k), cnt.keys()), repeat(0))
    ordered = sum(map(mul, cnt.values(), complements))
    if k % 2 == 0:
        ordered -= cnt.get(k // 2, 0)
    sys.stdout.write(f"{ordered // 2}\n")


main()
