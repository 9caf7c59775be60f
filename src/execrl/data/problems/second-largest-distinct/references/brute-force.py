t = int(input())
for _ in range(t):
    n = int(input())
    a = list(map(int, input().split()))
    distinct = set(a)
    answer = -1
    # x is the answer when exactly one distinct value is larger than it
    for x in distinct:
        larger = 0
        for y in distinct:
            if y > x:
                larger += 1
        if larger == 1:
            answer = x
            break
    print(answer)
