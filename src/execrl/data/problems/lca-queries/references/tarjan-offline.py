import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    parent = [0, 1] + [int(x) for x in data[1:n]]
    children = [[] for _ in range(n + 1)]
    for v in range(2, n + 1):
        children[parent[v]].append(v)
    # reversed preorder is a postorder: every vertex comes after its whole subtree
    order = []
    stack = [1]
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(children[v])
    order.reverse()
    q = int(data[n])
    vals = list(map(int, data[n + 1 : n + 1 + 2 * q]))
    asked = [[] for _ in range(n + 1)]  # query indices touching each vertex
    for j in range(q):
        asked[vals[2 * j]].append(j)
        asked[vals[2 * j + 1]].append(j)
    answer = [0] * q
    done = [False] * (n + 1)
    # Tarjan's offline LCA: link[v] climbs from a finished vertex toward the lowest
    # unfinished ancestor, which is the answer for a query with the vertex being finished
    link = list(range(n + 1))
    for v in order:
        done[v] = True
        for j in asked[v]:
            w = vals[2 * j] + vals[2 * j + 1] - v  # the other end
            if done[w]:
                r = w
                while link[r] != r:
                    link[r] = link[link[r]]
                    r = link[r]
                answer[j] = r
        link[v] = parent[v]
    sys.stdout.write("\n".join(map(str, answer)) + "\n")


main()
