import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1 : 1 + n]))
    rank = {v: i + 1 for i, v in enumerate(sorted(set(a)))}
    m = len(rank)
    tree = [0] * (m + 1)  # Fenwick tree of how many values of each rank were seen
    total = 0
    for seen, x in enumerate(a):
        r = rank[x]
        # values seen so far that are <= x
        i = r
        not_greater = 0
        while i:
            not_greater += tree[i]
            i &= i - 1
        total += seen - not_greater
        while r <= m:
            tree[r] += 1
            r += r & -r
    sys.stdout.write(f"{total}\n")


main()
