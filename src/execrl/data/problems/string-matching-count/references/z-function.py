import sys


def z_function(s):
    n = len(s)
    z = [0] * n
    z[0] = n
    l = r = 0
    for i in range(1, n):
        if i < r:
            z[i] = min(r - i, z[i - l])
        while i + z[i] < n and s[z[i]] == s[i + z[i]]:
            z[i] += 1
        if i + z[i] > r:
            l, r = i, i + z[i]
    return z


def main():
    text, pattern = sys.stdin.read().split()
    m = len(pattern)
    z = z_function(pattern + "#" + text)
    print(sum(1 for v in z[m + 1 :] if v >= m))


main()
