# Divide and conquer over prefix-sum positions: pairs (i, j), i < j, with P_j - P_i = k
# are counted where i and j fall in different halves, using the sorted halves.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    prefix = [0] * (n + 1)
    for i in range(n):
        prefix[i + 1] = prefix[i] + int(data[2 + i])

    def solve(lo, hi):
        # returns (pairs inside prefix[lo:hi], that slice sorted)
        if hi - lo == 1:
            return 0, [prefix[lo]]
        mid = (lo + hi) // 2
        c1, left = solve(lo, mid)
        c2, right = solve(mid, hi)
        count = c1 + c2
        # for each y in right count x in left with x == y - k; both lists are sorted
        i = 0
        nl = len(left)
        last_want = None
        run = 0
        for y in right:
            want = y - k
            if want != last_want:
                while i < nl and left[i] < want:
                    i += 1
                j = i
                while j < nl and left[j] == want:
                    j += 1
                run = j - i
                last_want = want
            count += run
        merged = left + right
        merged.sort()
        return count, merged

    total, _ = solve(0, n + 1)
    sys.stdout.write(f"{total}\n")


main()
