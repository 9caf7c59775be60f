import random
import sys

MAX_N = 35000
LIM = 10**9


def emit(pts):
    lines = [str(len(pts))]
    lines.extend(f"{x} {y}" for x, y in pts)
    sys.stdout.write("\n".join(lines) + "\n")


def uniform(rng, n, lim):
    return [(rng.randint(-lim, lim), rng.randint(-lim, lim)) for _ in range(n)]


def small(rng):
    n = rng.randint(2, 10)
    lim = rng.choice([3, 20, 1000, LIM])
    return uniform(rng, n, lim)


def edge(rng, seed):
    kind = seed % 10
    if kind == 0:  # two points, extreme corners
        return [(-LIM, -LIM), (LIM, LIM)]
    if kind == 1:  # repeated point among others: answer 0
        pts = uniform(rng, rng.randint(3, 40), 1000)
        pts.append(rng.choice(pts))
        rng.shuffle(pts)
        return pts
    if kind == 2:  # all points identical
        p = (rng.randint(-LIM, LIM), rng.randint(-LIM, LIM))
        return [p] * rng.randint(2, 30)
    if kind == 3:  # points on one vertical line
        x = rng.randint(-LIM, LIM)
        ys = rng.sample(range(-10**6, 10**6), rng.randint(3, 60))
        return [(x, y) for y in ys]
    if kind == 4:  # close pair far from the origin (large coordinates, tiny answer)
        pts = uniform(rng, rng.randint(3, 40), LIM - 10)
        x, y = rng.choice(pts)
        pts.append((x + rng.randint(1, 9), y + rng.randint(0, 9)))
        rng.shuffle(pts)
        return pts
    if kind == 5:  # closest pair far apart in x order: a narrow vertical cluster plus noise
        pts = [(rng.randint(0, 3), rng.randint(-LIM, LIM)) for _ in range(rng.randint(10, 60))]
        return pts
    if kind == 6:  # points on a horizontal line, sorted
        xs = sorted(rng.sample(range(-10**6, 10**6), rng.randint(3, 60)))
        return [(x, 7) for x in xs]
    if kind == 7:  # lattice: many pairs tie for the minimum
        k = rng.randint(1, 1000)
        return [(i * k, j * k) for i in range(6) for j in range(6)]
    if kind == 8:  # integer answer after a sqrt: 3-4-5 triangles scaled
        s = rng.randint(1, 10**5)
        return [(0, 0), (3 * s, 4 * s), (3 * s + 8 * s, 4 * s + 6 * s), (-LIM, LIM)]
    # maximum distance between the only two points
    return [(-LIM, LIM), (LIM, -LIM)]


def large(rng, seed):
    n = rng.randint(MAX_N * 5 // 10, MAX_N)
    kind = seed % 7
    if kind == 0:  # narrow vertical band
        return [(rng.randint(0, 100), rng.randint(-LIM, LIM)) for _ in range(n)]
    if kind == 1:  # lattice, shuffled
        k = rng.randint(1, 30000)
        side = int(n**0.5)
        pts = [(i * k, j * k) for i in range(side) for j in range(side)]
        rng.shuffle(pts)
        return pts
    if kind == 2:  # one planted close pair far from the origin
        pts = uniform(rng, n - 1, LIM - 100)
        x, y = rng.choice(pts)
        pts.append((x + rng.randint(1, 50), y - rng.randint(1, 50)))
        rng.shuffle(pts)
        return pts
    if kind == 3:  # clusters
        centres = uniform(rng, 20, LIM // 2)
        pts = []
        for _ in range(n):
            cx, cy = rng.choice(centres)
            pts.append((cx + rng.randint(-10**6, 10**6), cy + rng.randint(-10**6, 10**6)))
        return pts
    if kind == 4:  # points on a parabola
        xs = rng.sample(range(-30000, 30000), n)
        return [(x, x * x // 2) for x in xs]
    return uniform(rng, n, LIM)


def main():
    mode, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    if mode == "small":
        pts = small(rng)
    elif mode == "edge":
        pts = edge(rng, seed)
    else:
        pts = large(rng, seed)
    emit(pts)


main()
