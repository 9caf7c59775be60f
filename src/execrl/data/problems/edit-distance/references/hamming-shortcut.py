import sys


def distance(s, t):
    if len(s) == len(t):
        # same length: substitutions only
        return sum(1 for a, b in zip(s, t) if a != b)
    prev = list(range(len(t) + 1))
    for i, c in enumerate(s, 1):
        cur = [i]
        for j, ch in enumerate(t):
            cur.append(min(prev[j + 1] + 1, cur[j] + 1, prev[j] + (ch != c)))
        prev = cur
    return prev[-1]


lines = sys.stdin.read().split("\n")
print(distance(lines[0].strip() if lines else "", lines[1].strip() if len(lines) > 1 else ""))
