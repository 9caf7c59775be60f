def is_balanced(s):
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for ch in s:
        if ch in "([{":
            stack.append(ch)
        else:
            if len(stack) == 0:
                return False
            top = stack[-1]
            if top != pairs[ch]:
                return False
            stack.pop()
    return len(stack) == 0


t = int(input())
for _ in range(t):
    line = input().strip()
    print("YES" if is_balanced(line) else "NO")
