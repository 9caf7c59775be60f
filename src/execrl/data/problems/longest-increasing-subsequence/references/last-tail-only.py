import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    chain = []  # the increasing chain built so far; only its last element is ever improved
    for x in map(int, data[1 : 1 + n]):
        if not chain or x > chain[-1]:
            chain.append(x)
        elif len(chain) == 1 or x > chain[-2]:
            chain[-1] = x
    sys.stdout.write(f"{len(chain)}\n")


main()
