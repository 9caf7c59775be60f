import ctypes
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1 : 1 + n]))
    rank = {v: i + 1 for i, v in enumerate(sorted(set(a)))}
    m = len(rank)
    tree = [0] * (m + 1)
    total = ctypes.c_int32(0)  # the answer kept in a C int, as in the original C solution
    for seen, x in enumerate(a):
        r = rank[x]
        i = r
        not_greater = 0
        while i:
            not_greater += tree[i]
            i &= i - 1
        total.value += seen - not_greater
        while r <= m:
            tree[r] += 1
            r += r & -r
    sys.stdout.write(f"{total.value}\n")


main()
