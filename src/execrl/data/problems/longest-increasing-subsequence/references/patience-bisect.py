from bisect import bisect_left


def main():
    n = int(input())
    a = [int(x) for x in input().split()]
    tails = []
    for x in a:
        i = bisect_left(tails, x)
        if i == len(tails):
            tails.append(x)
        else:
            tails[i] = x
    print(len(tails))


main()
