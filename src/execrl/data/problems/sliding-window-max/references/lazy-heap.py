import heapq


def main():
    n, k = map(int, input().split())
    a = list(map(int, input().split()))
    heap = []  # (-value, index); entries that left the window are dropped lazily
    out = []
    for i in range(n):
        heapq.heappush(heap, (-a[i], i))
        if i >= k - 1:
            while heap[0][1] <= i - k:
                heapq.heappop(heap)
            out.append(-heap[0][0])
    print(" ".join(map(str, out)))


main()
