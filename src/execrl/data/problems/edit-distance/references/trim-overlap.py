import sys


def distance(s, t):
    n, m = len(s), len(t)
    shortest = min(n, m)
    i = 0
    while i < shortest and s[i] == t[i]:
        i += 1
    j = 0
    while j < shortest and s[n - 1 - j] == t[m - 1 - j]:
        j += 1
    s, t = s[i : n - j], t[i : m - j]
    prev = list(range(len(t) + 1))
    for k, c in enumerate(s, 1):
        cur = [k]
        left = k
        for ch, diag, up in zip(t, prev, prev[1:]):
            if ch == c:
                left = diag
            else:
                left = min(left, up, diag) + 1
            cur.append(left)
        prev = cur
    return prev[-1]


lines = sys.stdin.read().split("\n")
print(distance(lines[0].strip() if lines else "", lines[1].strip() if len(lines) > 1 else ""))
