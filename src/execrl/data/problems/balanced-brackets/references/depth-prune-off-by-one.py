import sys


def is_balanced(s):
    opener = {")": "(", "]": "[", "}": "{"}
    half = len(s) // 2
    stack = []
    for ch in s:
        if ch in "([{":
            stack.append(ch)
            # more open brackets than can ever be closed: give up early
            if len(stack) >= half:
                return False
        elif not stack or stack.pop() != opener[ch]:
            return False
    return not stack


def main():
    tokens = sys.stdin.read().split()
    t = int(tokens[0])
    print("\n".join("YES" if is_balanced(s) else "NO" for s in tokens[1 : t + 1]))


main()
