import sys


def main():
    text, pattern = sys.stdin.read().split()
    m = len(pattern)
    count = 0
    j = 0  # characters of the pattern matched so far
    for ch in text:
        if ch == pattern[j]:
            j += 1
            if j == m:
                count += 1
                j = 0
        else:
            # start over; the mismatched character may begin a new match
            j = 1 if ch == pattern[0] else 0
            if j == m:
                count += 1
                j = 0
    print(count)


main()
