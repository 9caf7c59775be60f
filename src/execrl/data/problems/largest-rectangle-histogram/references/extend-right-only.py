# Each bar's rectangle: the bar's height times the run of bars at least as tall that
# starts at the bar and goes right.
n = int(input())
h = list(map(int, input().split()))
right = [n] * n
stack = []
for i in range(n - 1, -1, -1):
    while stack and h[stack[-1]] >= h[i]:
        stack.pop()
    right[i] = stack[-1] if stack else n
    stack.append(i)
print(max(h[i] * (right[i] - i) for i in range(n)))
