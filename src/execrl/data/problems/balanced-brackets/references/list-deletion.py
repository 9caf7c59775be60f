import sys

MATCH = {")": "(", "]": "[", "}": "{"}


def is_balanced(s):
    # Walk a list of characters; delete each adjacent matched pair in place and step back.
    chars = list(s)
    i = 0
    while i + 1 < len(chars):
        if MATCH.get(chars[i + 1]) == chars[i]:
            del chars[i : i + 2]
            if i > 0:
                i -= 1
        else:
            i += 1
    return not chars


def main():
    tokens = sys.stdin.read().split()
    t = int(tokens[0])
    print("\n".join("YES" if is_balanced(s) else "NO" for s in tokens[1 : t + 1]))


main()
