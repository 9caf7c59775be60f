import sys


def main():
    data = sys.stdin.read().split("\n")
    s = data[0].strip() if len(data) > 0 else ""
    t = data[1].strip() if len(data) > 1 else ""
    prev = list(range(len(t) + 1))
    for i, c in enumerate(s, 1):
        cur = [i]
        for j, ch in enumerate(t):
            cur.append(min(prev[j + 1] + 1, cur[j] + 1, prev[j] + (ch != c)))
        prev = cur
    print(prev[-1])


main()
