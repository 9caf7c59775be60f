# For every position decide whether some earlier value is >= it, keeping a stack of
# earlier indices whose values are in non-increasing order (previous-greater-or-equal).
n = int(input())
a = [int(x) for x in input().split()]
stack = []
count = 0
for i in range(n):
    x = a[i]
    while stack and a[stack[-1]] < x:
        stack.pop()
    if not stack:
        count += 1
    stack.append(i)
print(count)
