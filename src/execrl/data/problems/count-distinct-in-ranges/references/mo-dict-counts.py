# Mo's algorithm: sort queries by (block of l, r) (r alternating direction per block),
# slide a window and keep value counts
# in a dictionary.
import sys
from collections import defaultdict
from math import isqrt

input = sys.stdin.readline
n, q = map(int, input().split())
a = input().split()
queries = []
for qi in range(q):
    l, r = map(int, input().split())
    queries.append((l - 1, r - 1, qi))
block = max(1, n // max(1, isqrt(q)))
queries.sort(key=lambda t: (t[0] // block, t[1] if (t[0] // block) % 2 == 0 else -t[1]))
count = defaultdict(int)
distinct = 0
cur_l, cur_r = 0, -1
answers = [0] * q
for l, r, qi in queries:
    while cur_r < r:
        cur_r += 1
        count[a[cur_r]] += 1
        if count[a[cur_r]] == 1:
            distinct += 1
    while cur_l > l:
        cur_l -= 1
        count[a[cur_l]] += 1
        if count[a[cur_l]] == 1:
            distinct += 1
    while cur_r > r:
        count[a[cur_r]] -= 1
        if count[a[cur_r]] == 0:
            distinct -= 1
        cur_r -= 1
    while cur_l < l:
        count[a[cur_l]] -= 1
        if count[a[cur_l]] == 0:
            distinct -= 1
        cur_l += 1
    answers[qi] = distinct
print("\n".join(map(str, answers)))
