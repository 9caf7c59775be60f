from collections import deque

n, k = map(int, input().split())
a = map(int, input().split())
window = deque()
s = 0
best = None
for x in a:
    window.append(x)
    s += x
    if len(window) > k:
        s -= window.popleft()
    if len(window) == k and (best is None or s > best):
        best = s
print(f"{best / k:.6f}")
