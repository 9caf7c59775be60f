import sys


def distance(s, t):
    # strip the common prefix and suffix: they never need an edit
    i = 0
    while i < len(s) and i < len(t) and s[i] == t[i]:
        i += 1
    s, t = s[i:], t[i:]
    j = 0
    while j < len(s) and j < len(t) and s[-1 - j] == t[-1 - j]:
        j += 1
    s, t = s[: len(s) - j], t[: len(t) - j]
    if len(s) < len(t):
        s, t = t, s
    prev = list(range(len(t) + 1))
    for i, c in enumerate(s, 1):
        cur = [i]
        left = i
        for ch, diag, up in zip(t, prev, prev[1:]):
            if ch == c:
                left = diag
            else:
                if up < left:
                    left = up
                if diag < left:
                    left = diag
                left += 1
            cur.append(left)
        prev = cur
    return prev[-1]


lines = sys.stdin.read().split("\n")
print(distance(lines[0].strip() if lines else "", lines[1].strip() if len(lines) > 1 else ""))
