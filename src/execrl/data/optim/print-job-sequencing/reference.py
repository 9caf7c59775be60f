import itertools

import pulp

duration = {"A": 4, "B": 6, "C": 3, "D": 5}
release = {"A": 0, "B": 1, "C": 2, "D": 0}
weight = {"A": 2, "B": 1, "C": 3, "D": 2}
big_m = max(release.values()) + sum(duration.values())

prob = pulp.LpProblem("press_sequence", pulp.LpMinimize)
done = {
    j: pulp.LpVariable(f"finish_{j}", lowBound=release[j] + duration[j]) for j in duration
}
pairs = list(itertools.combinations(sorted(duration), 2))
first = {(i, j): pulp.LpVariable(f"{i}_before_{j}", cat="Binary") for i, j in pairs}

prob += pulp.lpSum(weight[j] * done[j] for j in duration)
for i, j in pairs:
    prob += done[j] >= done[i] + duration[j] - big_m * (1 - first[i, j]), f"{i}_then_{j}"
    prob += done[i] >= done[j] + duration[i] - big_m * first[i, j], f"{j}_then_{i}"

prob.writeLP("model.lp")
prob.solve(pulp.PULP_CBC_CMD(msg=False, gapRel=0))

status = pulp.LpStatus[prob.status]
if status == "Optimal":
    print(f"objective: {pulp.value(prob.objective):.6f}")
elif status == "Infeasible":
    print("status: infeasible")
elif status == "Unbounded":
    print("status: unbounded")
else:
    raise RuntimeError(f"CBC stopped with status {status}")
