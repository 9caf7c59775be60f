# INCORRECT: parses the values as floats, so huge neighbouring values collapse into one.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    print(len(set(map(float, data[1 : 1 + n]))))


main()
