import sys


def main():
    lines = sys.stdin.buffer.read().split(b"\n")
    s = lines[0].strip() if len(lines) > 0 else b""
    t = lines[1].strip() if len(lines) > 1 else b""
    if len(s) < len(t):
        s, t = t, s  # keep the row (over t) as the shorter string
    prev = list(range(len(t) + 1))
    for i, c in enumerate(s, 1):
        cur = [i]
        left = i
        # diag = prev[j - 1], up = prev[j]
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
    sys.stdout.write(f"{prev[-1]}\n")


main()
