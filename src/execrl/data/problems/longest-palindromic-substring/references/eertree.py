import sys


def main():
    s = sys.stdin.buffer.read().split()[1]
    n = len(s)
    codes = s.translate(bytes.maketrans(b"abcdefghijklmnopqrstuvwxyz", bytes(range(26))))
    # Palindromic tree (eertree). Node 0: the imaginary root of length -1; node 1: the
    # empty palindrome. go[26 * v + c] is the node for c + palindrome(v) + c (0 = none).
    length = [-1, 0]
    link = [0, 0]
    go = [0] * (26 * (n + 2))
    last = 1
    best = 0
    for i in range(n):
        c = codes[i]
        cur = last
        while True:
            j = i - length[cur] - 1
            if j >= 0 and codes[j] == c:
                break
            cur = link[cur]
        node = go[26 * cur + c]
        if node:
            last = node
            continue
        node = len(length)
        size = length[cur] + 2
        length.append(size)
        if size == 1:
            link.append(1)
        else:
            w = link[cur]
            while True:
                j = i - length[w] - 1
                if j >= 0 and codes[j] == c:
                    break
                w = link[w]
            link.append(go[26 * w + c])
        go[26 * cur + c] = node
        last = node
        if size > best:
            best = size
    print(best)


main()
