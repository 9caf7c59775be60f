from bisect import bisect_left, bisect_right


def main():
    n, k = map(int, input().split())
    a = sorted(map(int, input().split()))
    total = 0
    for i in range(n):
        w = k - a[i]
        if w < a[i]:
            break
        total += bisect_right(a, w, i + 1) - bisect_left(a, w, i + 1)
    print(total)


main()
