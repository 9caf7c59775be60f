import random
import sys


class Node:
    __slots__ = ("key", "prio", "left", "right", "size")

    def __init__(self, key, prio):
        self.key = key
        self.prio = prio
        self.left = None
        self.right = None
        self.size = 1


def size(t):
    return t.size if t else 0


def split(t, key):
    # (values <= key, values > key)
    if t is None:
        return None, None
    if t.key <= key:
        a, b = split(t.right, key)
        t.right = a
        t.size = 1 + size(t.left) + size(a)
        return t, b
    a, b = split(t.left, key)
    t.left = b
    t.size = 1 + size(b) + size(t.right)
    return a, t


def merge(a, b):
    # every value of a precedes every value of b
    if a is None:
        return b
    if b is None:
        return a
    if a.prio > b.prio:
        a.right = merge(a.right, b)
        a.size = 1 + size(a.left) + size(a.right)
        return a
    b.left = merge(a, b.left)
    b.size = 1 + size(b.left) + size(b.right)
    return b


def main():
    n = int(input())
    a = list(map(int, input().split()))
    rng = random.Random(12345)
    root = None
    total = 0
    for x in a:
        low, high = split(root, x)
        total += size(high)  # earlier values greater than x
        root = merge(merge(low, Node(x, rng.random())), high)
    print(total)


sys.setrecursionlimit(10000)
main()
