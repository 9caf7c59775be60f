# Nearest lower-or-equal bar on each side bounds each bar's rectangle.
n = int(input())
h = list(map(int, input().split()))
left = [-1] * n
stack = []
for i in range(n):
    while stack and h[stack[-1]] > h[i]:
        stack.pop()
    left[i] = stack[-1] if stack else -1
    stack.append(i)
right = [n] * n
stack = []
for i in range(n - 1, -1, -1):
    while stack and h[stack[-1]] > h[i]:
        stack.pop()
    right[i] = stack[-1] if stack else n
    stack.append(i)
print(max(h[i] * (right[i] - left[i] - 1) for i in range(n)))
