MOD = 1_000_000_007


def mat_mul(a, b):
    return [
        [(a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j]) % MOD for j in range(3)]
        for i in range(3)
    ]


def ways(n):
    result = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    step = [[1, 1, 1], [1, 0, 0], [0, 1, 0]]
    while n:
        if n & 1:
            result = mat_mul(result, step)
        step = mat_mul(step, step)
        n >>= 1
    return result[0][0]


q = int(input())
for _ in range(q):
    print(ways(int(input())))
