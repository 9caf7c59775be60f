import sys


def merge_sort(a):
    if len(a) <= 1:
        return a
    mid = len(a) // 2
    left = merge_sort(a[:mid])
    right = merge_sort(a[mid:])
    merged = []
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i] >= right[j]:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged


def main():
    data = sys.stdin.read().split()
    t = int(data[0])
    pos = 1
    out = []
    for _ in range(t):
        n = int(data[pos])
        a = merge_sort([int(x) for x in data[pos + 1 : pos + 1 + n]])  # descending
        pos += 1 + n
        answer = -1
        for x in a:
            if x < a[0]:
                answer = x
                break
        out.append(str(answer))
    print("\n".join(out))


main()
