import sys


def is_balanced(s):
    # One depth counter per bracket type: never negative, zero at the end.
    depth = {"(": 0, "[": 0, "{": 0}
    opener = {")": "(", "]": "[", "}": "{"}
    for ch in s:
        if ch in depth:
            depth[ch] += 1
        else:
            depth[opener[ch]] -= 1
            if depth[opener[ch]] < 0:
                return False
    return all(v == 0 for v in depth.values())


def main():
    tokens = sys.stdin.read().split()
    t = int(tokens[0])
    print("\n".join("YES" if is_balanced(s) else "NO" for s in tokens[1 : t + 1]))


main()
