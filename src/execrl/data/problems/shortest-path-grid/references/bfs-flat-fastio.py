import sys


def main():
    data = sys.stdin.buffer.read().split()
    r, c = int(data[0]), int(data[1])
    w = c + 2
    # Flatten with a wall border so neighbours never leave the grid or wrap around a row.
    grid = bytearray(b"#" * w)
    for row in data[2 : 2 + r]:
        grid += b"#" + row + b"#"
    grid += b"#" * w
    start = grid.find(b"S")
    target = grid.find(b"T")
    grid[target] = 46  # '.'
    grid[start] = 35  # '#': visited cells become walls
    frontier = [start]
    steps = 0
    while frontier:
        steps += 1
        nxt = []
        push = nxt.append
        for v in frontier:
            u = v - 1
            if grid[u] == 46:
                grid[u] = 35
                push(u)
            u = v + 1
            if grid[u] == 46:
                grid[u] = 35
                push(u)
            u = v - w
            if grid[u] == 46:
                grid[u] = 35
                push(u)
            u = v + w
            if grid[u] == 46:
                grid[u] = 35
                push(u)
        if grid[target] == 35:
            print(steps)
            return
        frontier = nxt
    print(-1)


main()
