# O(n log n): 2n endpoint events encoded as integers, sorted, swept with a depth counter.
# Length is unaffected by the order of a start and an end at the same coordinate.
def main():
    n = int(input())
    events = []
    for _ in range(n):
        l, r = map(int, input().split())
        events.append(2 * l)
        events.append(2 * r + 1)
    events.sort()
    total = 0
    depth = 0
    start = 0
    for e in events:
        x = e >> 1
        if e & 1:
            depth -= 1
            if depth == 0:
                total += x - start
        else:
            if depth == 0:
                start = x
            depth += 1
    print(total)


main()
