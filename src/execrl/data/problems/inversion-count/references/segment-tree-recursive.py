import sys


def main():
    n = int(input())
    a = list(map(int, input().split()))
    values = sorted(set(a))
    rank = {v: i for i, v in enumerate(values)}
    m = len(values)
    tree = [0] * (4 * m)  # recursive segment tree: how many values of each rank were seen

    def add(node, lo, hi, pos):
        tree[node] += 1
        if hi - lo > 1:
            mid = (lo + hi) // 2
            if pos < mid:
                add(2 * node, lo, mid, pos)
            else:
                add(2 * node + 1, mid, hi, pos)

    def count(node, lo, hi, qlo, qhi):  # values seen with rank in [qlo, qhi)
        if qhi <= lo or hi <= qlo:
            return 0
        if qlo <= lo and hi <= qhi:
            return tree[node]
        mid = (lo + hi) // 2
        return count(2 * node, lo, mid, qlo, qhi) + count(2 * node + 1, mid, hi, qlo, qhi)

    total = 0
    for x in a:
        r = rank[x]
        total += count(1, 0, m, r + 1, m)  # earlier values greater than x
        add(1, 0, m, r)
    print(total)


sys.setrecursionlimit(10000)
main()
