# Mo's algorithm with the per-value counters indexed directly by the value.
import sys
from math import isqrt


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    a = list(map(int, data[2 : n + 2]))
    queries = []
    pos = n + 2
    for qi in range(q):
        queries.append((int(data[pos]) - 1, int(data[pos + 1]) - 1, qi))
        pos += 2
    block = max(1, int(n / max(1, isqrt(q))))
    queries.sort(key=lambda t: (t[0] // block, t[1]))
    cnt = [0] * (max(a) + 1)
    distinct = 0
    cur_l, cur_r = 0, -1
    answers = [0] * q
    for l, r, qi in queries:
        while cur_r < r:
            cur_r += 1
            cnt[a[cur_r]] += 1
            if cnt[a[cur_r]] == 1:
                distinct += 1
        while cur_l > l:
            cur_l -= 1
            cnt[a[cur_l]] += 1
            if cnt[a[cur_l]] == 1:
                distinct += 1
        while cur_r > r:
            cnt[a[cur_r]] -= 1
            if cnt[a[cur_r]] == 0:
                distinct -= 1
            cur_r -= 1
        while cur_l < l:
            cnt[a[cur_l]] -= 1
            if cnt[a[cur_l]] == 0:
                distinct -= 1
            cur_l += 1
        answers[qi] = distinct
    sys.stdout.write("\n".join(map(str, answers)) + "\n")


main()
