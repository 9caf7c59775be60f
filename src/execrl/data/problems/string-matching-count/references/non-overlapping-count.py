text = input().strip()
pattern = input().strip()
print(text.count(pattern))
