import sys


def main():
    text, pattern = sys.stdin.buffer.read().split()
    n, m = len(text), len(pattern)
    if m > n:
        print(0)
        return
    # prefix function of the pattern
    pi = [0] * m
    k = 0
    for i in range(1, m):
        c = pattern[i]
        while k and pattern[k] != c:
            k = pi[k - 1]
        if pattern[k] == c:
            k += 1
        pi[i] = k
    # scan the text; after a full match fall back to the longest border (overlaps count)
    count = 0
    k = 0
    last = m - 1
    for c in text:
        while k and pattern[k] != c:
            k = pi[k - 1]
        if pattern[k] == c:
            if k == last:
                count += 1
                k = pi[k]
            else:
                k += 1
    print(count)


main()
