t = int(input())
for _ in range(t):
    n = int(input())
    a = list(map(int, input().split()))
    first = second = -1
    for i in range(n - 1):
        x = a[i]
        if x > first:
            second = first
            first = x
        elif first > x > second:
            second = x
    print(second)
