import sys


def main():
    data = sys.stdin.buffer.read().split()
    t = int(data[0])
    out = []
    for k in range(t):
        a = data[1 + 2 * k]
        b = data[2 + 2 * k]
        if len(a) > len(b):
            a, b = b, a  # one loop iteration per letter of the shorter string
        masks = {}
        for j, ch in enumerate(b):
            masks[ch] = masks.get(ch, 0) | (1 << j)
        get = masks.get
        row = 0
        for ch in a:
            x = get(ch, 0) | row
            row = x & ~(x - ((row << 1) | 1))
        out.append(bin(row).count("1"))
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
