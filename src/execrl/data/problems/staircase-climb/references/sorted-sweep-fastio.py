import sys


def main():
    mod = 1_000_000_007
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    queries = list(map(int, data[1 : 1 + q]))
    order = sorted(range(q), key=queries.__getitem__)
    answers = [0] * q
    a, b, c = 0, 0, 1  # ways(pos-2), ways(pos-1), ways(pos)
    pos = 0
    for idx in order:
        target = queries[idx]
        for _ in range(target - pos):
            a, b, c = b, c, (a + b + c) % mod
        pos = target
        answers[idx] = c
    sys.stdout.write("\n".join(map(str, answers)) + "\n")


main()
