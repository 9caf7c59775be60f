import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    h = list(map(int, data[1 : n + 1]))
    h.append(0)  # a final bar of height 0 flushes the stack
    stack = [-1]  # indices with increasing heights; -1 is the left wall
    best = 0
    for i, x in enumerate(h):
        while len(stack) > 1 and h[stack[-1]] >= x:
            height = h[stack.pop()]
            area = height * (i - stack[-1] - 1)
            if area > best:
                best = area
        stack.append(i)
    sys.stdout.write(f"{best}\n")


main()
