import sys


def main():
    s, t = sys.stdin.read().split()
    if len(s) < len(t):
        s, t = t, s
    prev = list(range(len(t) + 1))
    for i, c in enumerate(s, 1):
        cur = [i]
        left = i
        for ch, diag, up in zip(t, prev, prev[1:]):
            if ch == c:
                left = diag
            else:
                if up < left:
                    left = up
                if diag < left:
                    left = diag
                left += 1
            cur.append(left)
        prev = cur
    print(prev[-1])


main()
