# Group the positions of equal prefix sums by sorting, then for each value v merge the
# (ascending) positions of v - k and of v to count pairs i < j.
import sys
from itertools import accumulate, groupby


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    prefix = list(accumulate(map(int, data[2 : n + 2]), initial=0))
    at = prefix.__getitem__
    order = sorted(range(n + 1), key=at)  # stable: positions stay ascending within a value
    groups = {v: list(g) for v, g in groupby(order, key=at)}
    total = 0
    if k == 0:
        for js in groups.values():
            m = len(js)
            total += m * (m - 1) // 2
    else:
        for v, js in groups.items():
            starts = groups.get(v - k)
            if starts is None:
                continue
            p = 0
            ns = len(starts)
            for j in js:
                while p < ns and starts[p] < j:
                    p += 1
                total += p
    sys.stdout.write(f"{total}\n")


main()
