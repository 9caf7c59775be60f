n, m = map(int, input().split())
label = list(range(n + 1))
for _ in range(m):
    u, v = map(int, input().split())
    keep, gone = label[u], label[v]
    if keep != gone:
        label = [keep if x == gone else x for x in label]
print(len(set(label[1:])))
