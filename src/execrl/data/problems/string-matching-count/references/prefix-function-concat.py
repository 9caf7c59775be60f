def prefix_function(s):
    pi = [0] * len(s)
    for i in range(1, len(s)):
        k = pi[i - 1]
        while k > 0 and s[i] != s[k]:
            k = pi[k - 1]
        if s[i] == s[k]:
            k += 1
        pi[i] = k
    return pi


def main():
    text = input().strip()
    pattern = input().strip()
    m = len(pattern)
    pi = prefix_function(pattern + "#" + text)
    print(pi.count(m))


main()
