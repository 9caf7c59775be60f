import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1 : n + 1]))
    best = a[0]
    count = 1
    step = 64  # skip whole blocks whose maximum cannot beat the running maximum
    for start in range(1, n, step):
        block = a[start : start + step]
        if max(block) <= best:
            continue
        for x in block:
            if x > best:
                best = x
                count += 1
    sys.stdout.write(f"{count}\n")


main()
