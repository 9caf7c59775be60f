import sys


def lcs(a, b):
    masks = {}
    for j, ch in enumerate(b):
        masks[ch] = masks.get(ch, 0) | (1 << j)
    row = 0
    for ch in a:
        x = masks[ch] | row
        row = x & ~(x - ((row << 1) | 1))
    return bin(row).count("1")


def main():
    data = sys.stdin.read().split()
    t = int(data[0])
    print("\n".join(str(lcs(data[1 + 2 * i], data[2 + 2 * i])) for i in range(t)))


main()
