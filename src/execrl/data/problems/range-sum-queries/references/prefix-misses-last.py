# INCORRECT: the prefix-sum loop stops one element early, so pre[n] stays 0.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    a = list(map(int, data[2 : 2 + n]))
    pre = [0] * (n + 1)
    for i in range(1, n):
        pre[i] = pre[i - 1] + a[i - 1]
    out = []
    pos = 2 + n
    for _ in range(q):
        l, r = int(data[pos]), int(data[pos + 1])
        pos += 2
        out.append(pre[r] - pre[l - 1])
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
