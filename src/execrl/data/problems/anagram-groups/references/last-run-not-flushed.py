import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    signatures = sorted("".join(sorted(word)) for word in data[1 : 1 + n])
    groups = 0
    best = 0
    run = 0
    previous = None
    for sig in signatures:
        if sig == previous:
            run += 1
        else:
            best = max(best, run)
            groups += 1
            run = 1
            previous = sig
    print(groups, best)


main()
