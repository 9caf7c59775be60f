import sys


def main():
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    out = []
    for k in range(t):
        a = data[1 + 2 * k]
        b = data[2 + 2 * k]
        masks = [0] * 128
        bit = 1
        for ch in b:
            masks[ch] |= bit
            bit <<= 1
        row = 0
        for ch in a:
            x = masks[ch] | row
            row = x & ~(x - ((row << 1) | 1))
        out.append(row.bit_count())
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
