import ctypes
import sys
from collections import Counter


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    cnt = Counter(map(int, data[2 : 2 + n]))
    total = ctypes.c_int32(0)  # the answer kept in a C int, as in the original C solution
    for v, c in cnt.items():
        w = k - v
        if v < w:
            total.value += c * cnt.get(w, 0)
        elif v == w:
            total.value += c * (c - 1) // 2
    print(total.value)


main()
