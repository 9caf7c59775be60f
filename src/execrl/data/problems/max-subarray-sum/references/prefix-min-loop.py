def main():
    n = int(input())
    a = list(map(int, input().split()))
    prefix = 0
    lowest = 0  # minimum prefix sum seen strictly before the current position
    best = None
    for x in a:
        prefix += x
        if best is None or prefix - lowest > best:
            best = prefix - lowest
        if prefix < lowest:
            lowest = prefix
    print(best)


main()
