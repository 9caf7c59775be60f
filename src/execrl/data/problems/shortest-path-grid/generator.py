"""Generator for shortest-path-grid: python generator.py MODE SEED."""

import random
import sys

MAX_SIDE = 500


def random_grid(rng, r, c, wall_p):
    return [["#" if rng.random() < wall_p else "." for _ in range(c)] for _ in range(r)]


def maze(rng, r, c):
    """A spanning-tree maze: cells at even coordinates, carved by an iterative DFS."""
    g = [["#"] * c for _ in range(r)]
    g[0][0] = "."
    stack = [(0, 0)]
    while stack:
        y, x = stack[-1]
        options = [
            (y + dy, x + dx, y + dy // 2, x + dx // 2)
            for dy, dx in ((2, 0), (-2, 0), (0, 2), (0, -2))
            if 0 <= y + dy < r and 0 <= x + dx < c and g[y + dy][x + dx] == "#"
        ]
        if not options:
            stack.pop()
            continue
        ny, nx, my, mx = rng.choice(options)
        g[my][mx] = "."
        g[ny][nx] = "."
        stack.append((ny, nx))
    return g


def snake(r, c):
    """A serpentine corridor through every other row: the path is about r*c/2 long."""
    g = [["#"] * c for _ in range(r)]
    for y in range(0, r, 2):
        for x in range(c):
            g[y][x] = "."
        if y + 1 < r:
            g[y + 1][c - 1 if (y // 2) % 2 == 0 else 0] = "."
    return g


def open_cells(g):
    return [(y, x) for y, row in enumerate(g) for x, ch in enumerate(row) if ch == "."]


def place(rng, g, s=None, t=None):
    """Put S and T on two distinct cells (given ones, or random open cells)."""
    cells = open_cells(g)
    if s is None or t is None:
        if len(cells) < 2:
            g[0][0] = "."
            g[-1][-1] = "."
            cells = [(0, 0), (len(g) - 1, len(g[0]) - 1)]
        a, b = rng.sample(cells, 2)
        s = s or a
        t = t or b
    (sy, sx), (ty, tx) = s, t
    g[sy][sx] = "S"
    g[ty][tx] = "T"
    return g


def clear_around(g, y, x):
    """Open the cells next to (y, x), so random walls do not box it in."""
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            if 0 <= y + dy < len(g) and 0 <= x + dx < len(g[0]):
                g[y + dy][x + dx] = "."
    return g


def corner_pair(rng, r, c, spread):
    s = (rng.randrange(max(1, r // spread)), rng.randrange(max(1, c // spread)))
    t = (r - 1 - rng.randrange(max(1, r // spread)), c - 1 - rng.randrange(max(1, c // spread)))
    if s == t:
        s, t = (0, 0), (r - 1, c - 1)
    return s, t


def small(rng):
    r, c = rng.randint(1, 7), rng.randint(1, 7)
    if r * c < 2:
        c = 2
    kind = rng.randrange(3)
    if kind == 0 and r >= 3 and c >= 3:
        g = maze(rng, r, c)
    else:
        g = random_grid(rng, r, c, rng.uniform(0.0, 0.45))
    return place(rng, g)


def edge(rng, seed):
    case = seed % 8
    if case == 0:  # tiny: S and T adjacent, or separated by one wall
        opts = [["ST"], ["TS"], ["S", "T"], ["S#T"], ["S.T"], ["T", "#", "S"]]
        return [list(row) for row in opts[rng.randrange(len(opts))]]
    if case == 1:  # T walled in (unreachable), the rest open
        r, c = rng.randint(5, 60), rng.randint(5, 60)
        g = random_grid(rng, r, c, 0.1)
        ty, tx = rng.randrange(1, r - 1), rng.randrange(1, c - 1)
        for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            g[ty + dy][tx + dx] = "#"
        g[ty][tx] = "."
        s = (0, 0) if (ty, tx) != (0, 0) else (r - 1, c - 1)
        return place(rng, g, s, (ty, tx))
    if case == 2:  # open cells at the row ends: a flattened grid that wraps would shortcut
        r, c = rng.randint(3, 60), rng.randint(3, 60)
        g = [["#"] * c for _ in range(r)]
        for y in range(r):
            g[y][c - 1] = "."
        for x in range(c):
            g[r - 1][x] = "."
        for y in range(1, r):
            g[y][0] = "."
        return place(rng, g, (0, c - 1), (r - 1, 0))
    if case == 3:  # wide and flat / tall and thin (non-square)
        if rng.random() < 0.5:
            r, c = rng.randint(1, 3), rng.randint(50, MAX_SIDE)
        else:
            r, c = rng.randint(20, 60), rng.randint(100, 200)
        g = random_grid(rng, r, c, 0.15)
        s, t = (0, 0), (r - 1, c - 1)
        return place(rng, g, s, t)
    if case == 4:  # maze with a unique long path
        r, c = rng.randint(30, 120) | 1, rng.randint(30, 120) | 1
        g = maze(rng, r, c)
        return place(rng, g, (0, 0), (r - 1, c - 1))
    if case == 5:  # open grid where depth-first search wanders far from the shortest path
        r = c = rng.randint(20, 80)
        g = [["."] * c for _ in range(r)]
        dy, dx = rng.randint(2, 6), -rng.randint(2, 6)
        return place(rng, g, (r // 2, c // 2), (r // 2 + dy, c // 2 + dx))
    if case == 6:  # S boxed in at a corner, or T alone in a room
        r, c = rng.randint(3, 50), rng.randint(3, 50)
        g = random_grid(rng, r, c, 0.05)
        g[0][1] = "#"
        g[1][0] = "#"
        g[1][1] = "#"
        return place(rng, g, (0, 0), (r - 1, c - 1))
    # case 7: a long snake, T at its far end
    r, c = rng.randint(5, 40) | 1, rng.randint(5, 40)
    g = snake(r, c)
    return place(rng, g, (0, 0), (r - 1, c - 1 if ((r - 1) // 2) % 2 == 0 else 0))


def large(rng, seed):
    style = seed % 5
    scale = rng.uniform(0.67, 1.0)  # side scale: the area is 40% to 100% of the maximum
    r = max(2, int(MAX_SIDE * scale * rng.uniform(0.85, 1.0)))
    c = max(2, int(MAX_SIDE * scale * rng.uniform(0.85, 1.0)))
    if style == 0:  # random walls, S and T near opposite corners
        g = random_grid(rng, r, c, rng.uniform(0.1, 0.3))
        s, t = corner_pair(rng, r, c, 10)
        return place(rng, clear_around(clear_around(g, *s), *t), s, t)
    if style == 1:  # maze
        g = maze(rng, r | 1, c | 1)
        return place(rng, g, (0, 0), ((r | 1) - 1, (c | 1) - 1))
    if style == 2:  # nearly open
        g = random_grid(rng, r, c, rng.uniform(0.0, 0.05))
        s, t = corner_pair(rng, r, c, 4)
        return place(rng, g, s, t)
    if style == 3:  # T unreachable: a full search is needed
        g = clear_around(random_grid(rng, r, c, rng.uniform(0.1, 0.25)), 0, 0)
        ty, tx = r - 1, c - 1
        g[ty - 1][tx] = "#"
        g[ty][tx - 1] = "#"
        return place(rng, g, (0, 0), (ty, tx))
    # style 4: snake corridor
    r |= 1
    g = snake(r, c)
    return place(rng, g, (0, 0), (r - 1, c - 1 if ((r - 1) // 2) % 2 == 0 else 0))


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        g = small(rng)
    elif mode == "edge":
        g = edge(rng, seed)
    else:
        g = large(rng, seed)
    r, c = len(g), len(g[0])
    assert 1 <= r <= MAX_SIDE and 1 <= c <= MAX_SIDE and r * c >= 2
    text = ["".join(row) for row in g]
    assert all(len(row) == c for row in text)
    flat = "".join(text)
    assert flat.count("S") == 1 and flat.count("T") == 1 and set(flat) <= set(".#ST")
    sys.stdout.write(f"{r} {c}\n" + "\n".join(text) + "\n")


main()
