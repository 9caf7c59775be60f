import sys

sys.setrecursionlimit(30000)

CLOSER = {"(": ")", "[": "]", "{": "}"}


def parse(s, i):
    """Grammar S -> '' | open S close S.  Parse one S from index i; return its end or -1."""
    if i < len(s) and s[i] in CLOSER:
        j = parse(s, i + 1)
        if j < 0 or j >= len(s) or s[j] != CLOSER[s[i]]:
            return -1
        return parse(s, j + 1)
    return i


def main():
    tokens = sys.stdin.read().split()
    t = int(tokens[0])
    out = []
    for s in tokens[1 : t + 1]:
        out.append("YES" if parse(s, 0) == len(s) else "NO")
    print("\n".join(out))


main()
