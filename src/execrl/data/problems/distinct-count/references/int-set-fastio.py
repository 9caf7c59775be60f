# O(n): set of the parsed integers, whole input read at once.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    print(len(set(map(int, data[1 : 1 + n]))))


main()
