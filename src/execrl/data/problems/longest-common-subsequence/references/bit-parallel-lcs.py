def lcs(a, b):
    # bit j of `row` is set when the LCS of the processed prefix of a with b[:j+1]
    # is one larger than with b[:j]; the answer is the number of set bits.
    masks = {}
    for j, ch in enumerate(b):
        masks[ch] = masks.get(ch, 0) | (1 << j)
    row = 0
    for ch in a:
        x = masks.get(ch, 0) | row
        row = x & ~(x - ((row << 1) | 1))
    return bin(row).count("1")


t = int(input())
for _ in range(t):
    a = input().strip()
    b = input().strip()
    print(lcs(a, b))
