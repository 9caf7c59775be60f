import sys

CLOSER = {"(": ")", "[": "]", "{": "}"}


def parse(s, i):
    """Parse a sequence of balanced groups starting at i; return the index after it or -1."""
    n = len(s)
    while i < n and s[i] in CLOSER:
        want = CLOSER[s[i]]
        i = parse(s, i + 1)
        if i < 0 or i >= n or s[i] != want:
            return -1
        i += 1
    return i


def main():
    tokens = sys.stdin.read().split()
    t = int(tokens[0])
    out = []
    for s in tokens[1 : t + 1]:
        out.append("YES" if parse(s, 0) == len(s) else "NO")
    print("\n".join(out))


main()
