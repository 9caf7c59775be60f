# O(n log n) with a large constant: heapify, then pop everything in order and count changes.
import heapq


def main():
    n = int(input())
    heap = list(map(int, input().split()))
    heapq.heapify(heap)
    count = 0
    last = None
    while heap:
        x = heapq.heappop(heap)
        if count == 0 or x != last:
            count += 1
            last = x
    print(count)


main()
