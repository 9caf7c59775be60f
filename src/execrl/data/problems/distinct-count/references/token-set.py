# O(n): integers are written canonically, so equal values are equal byte tokens; hash the
# raw tokens without converting them.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    sys.stdout.write(f"{len(set(data[1 : 1 + n]))}\n")


main()
