def main():
    n = int(input())
    a = list(map(int, input().split()))
    tails = []
    for x in a:
        # first position whose tail is >= x, by a hand-written binary search
        lo, hi = 0, len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if tails[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        if lo == len(tails):
            tails.append(x)
        else:
            tails[lo] = x
    print(len(tails))


main()
