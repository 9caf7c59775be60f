def main():
    n, q = map(int, input().split())
    a = list(map(int, input().split()))
    b = 1
    while b * b < n:
        b += 1  # block length about sqrt(n)
    block_min = []
    for lo in range(0, n, b):
        m = a[lo]
        for i in range(lo, min(lo + b, n)):
            if a[i] < m:
                m = a[i]
        block_min.append(m)
    out = []
    for _ in range(q):
        kind, u, w = map(int, input().split())
        if kind == 1:
            a[u - 1] = w
            blk = (u - 1) // b
            m = w
            for i in range(blk * b, min(blk * b + b, n)):
                if a[i] < m:
                    m = a[i]
            block_min[blk] = m
        else:
            l, r = u - 1, w - 1
            best = a[l]
            i = l
            while i <= r:
                if i % b == 0 and i + b - 1 <= r:
                    if block_min[i // b] < best:
                        best = block_min[i // b]
                    i += b
                else:
                    if a[i] < best:
                        best = a[i]
                    i += 1
            out.append(best)
    print("\n".join(map(str, out)))


main()
