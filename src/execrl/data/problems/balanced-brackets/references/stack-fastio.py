import sys


def main():
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    opener_of = {41: 40, 93: 91, 125: 123}
    out = []
    for k in range(1, t + 1):
        s = data[k]
        if len(s) & 1:
            out.append("NO")
            continue
        stack = []
        push = stack.append
        pop = stack.pop
        ok = True
        for c in s:
            if c == 40 or c == 91 or c == 123:
                push(c)
            elif not stack or pop() != opener_of[c]:
                ok = False
                break
        out.append("YES" if ok and not stack else "NO")
    sys.stdout.write("\n".join(out) + "\n")


main()
