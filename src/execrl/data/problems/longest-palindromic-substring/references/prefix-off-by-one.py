def main():
    input()
    s = input().strip()
    t = "#" + "#".join(s) + "#"
    m = len(t)
    radius = [0] * m
    center = right = 0
    for i in range(m):
        if i < right:
            radius[i] = min(right - i, radius[2 * center - i])
        while (
            i - radius[i] - 1 > 0
            and i + radius[i] + 1 < m
            and t[i - radius[i] - 1] == t[i + radius[i] + 1]
        ):
            radius[i] += 1
        if i + radius[i] > right:
            center, right = i, i + radius[i]
    print(max(radius))


main()
