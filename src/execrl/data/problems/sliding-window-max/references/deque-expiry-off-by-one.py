import sys
from collections import deque


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2 : 2 + n]))
    window = deque()
    out = []
    for i, x in enumerate(a):
        while window and a[window[-1]] <= x:
            window.pop()
        window.append(i)
        if window[0] < i - k:
            window.popleft()
        if i >= k - 1:
            out.append(a[window[0]])
    sys.stdout.write(" ".join(map(str, out)) + "\n")


main()
