MOD = 1_000_000_007

n, amount = map(int, input().split())
coins = list(map(int, input().split()))
ways = [0] * (amount + 1)
ways[0] = 1
for c in coins:
    if c > amount:
        continue
    # new[a] = old[a] + new[a - c], built left to right in a fresh list
    new = ways[:c]
    for a in range(c, amount + 1):
        new.append((ways[a] + new[a - c]) % MOD)
    ways = new
print(ways[amount])
