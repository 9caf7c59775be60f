import sys


def main():
    mod = 1_000_000_007
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    queries = list(map(int, data[1 : 1 + q]))
    table = [1]
    push = table.append
    a, b, c = 0, 0, 1  # ways(-2), ways(-1), ways(0)
    for _ in range(max(queries)):
        a, b, c = b, c, (a + b + c) % mod
        push(c)
    sys.stdout.write("\n".join([str(table[n]) for n in queries]) + "\n")


main()
