# Mo's algorithm: order queries by (block of l, r) and move a window [cur_l, cur_r]
# from one query to the next, keeping a count per value and the number of non-zero counts.
import sys
from math import isqrt


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    ids = {}
    a = [ids.setdefault(x, len(ids)) for x in data[2 : n + 2]]  # compress values to 0..k-1
    queries = []
    pos = n + 2
    for qi in range(q):
        queries.append((int(data[pos]) - 1, int(data[pos + 1]) - 1, qi))
        pos += 2
    block = max(1, int(n / max(1, isqrt(q))))
    queries.sort(key=lambda t: (t[0] // block, t[1] if (t[0] // block) % 2 == 0 else -t[1]))
    cnt = [0] * len(ids)
    distinct = 0
    cur_l, cur_r = 0, -1
    answers = [0] * q
    for l, r, qi in queries:
        while cur_r < r:
            cur_r += 1
            v = a[cur_r]
            if cnt[v] == 0:
                distinct += 1
            cnt[v] += 1
        while cur_l > l:
            cur_l -= 1
            v = a[cur_l]
            if cnt[v] == 0:
                distinct += 1
            cnt[v] += 1
        while cur_r > r:
            v = a[cur_r]
            cnt[v] -= 1
            if cnt[v] == 0:
                distinct -= 1
            cur_r -= 1
        while cur_l < l:
            v = a[cur_l]
            cnt[v] -= 1
            if cnt[v] == 0:
                distinct -= 1
            cur_l += 1
        answers[qi] = distinct
    sys.stdout.write("\n".join(map(str, answers)) + "\n")


main()
