class Fenwick:
    def __init__(self, size):
        self.size = size
        self.tree = [0] * (size + 1)

    def add(self, i, delta):
        while i <= self.size:
            self.tree[i] += delta
            i += i & -i

    def prefix_sum(self, i):
        s = 0
        while i > 0:
            s += self.tree[i]
            i -= i & -i
        return s


def main():
    n = int(input())
    a = list(map(int, input().split()))
    values = sorted(set(a))
    rank = {v: i + 1 for i, v in enumerate(values)}
    fw = Fenwick(len(values))
    total = 0
    for j in range(n - 1, -1, -1):
        r = rank[a[j]]
        total += fw.prefix_sum(r - 1)  # values to the right of j that are smaller
        fw.add(r, 1)
    print(total)


main()
