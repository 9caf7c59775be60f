def main():
    n, k = map(int, input().split())
    a = list(map(int, input().split()))
    seen = {}
    total = 0
    for x in a:
        total += seen.get(k - x, 0)
        seen[x] = seen.get(x, 0) + 1
    print(total)


main()
