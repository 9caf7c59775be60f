t = int(input())
for _ in range(t):
    n = int(input())
    a = [int(x) for x in input().split()]
    counts = {}
    for x in a:
        counts[x] = counts.get(x, 0) + 1
    keys = sorted(counts.keys(), reverse=True)
    print(keys[1] if len(keys) > 1 else -1)
