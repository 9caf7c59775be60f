# Pop values from largest to smallest; of each group of equal values only the
# leftmost index (popped first) can be visible: when it lies left of every larger value.
import heapq
n = int(input())
a = [int(x) for x in input().split()]
heap = [(-x, i) for i, x in enumerate(a)]
heapq.heapify(heap)
min_index_larger = n
count = 0
while heap:
    neg, first = heapq.heappop(heap)
    if first < min_index_larger:
        count += 1
        min_index_larger = first
    while heap and heap[0][0] == neg:
        heapq.heappop(heap)
print(count)
