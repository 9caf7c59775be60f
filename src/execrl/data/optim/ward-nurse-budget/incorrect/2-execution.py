import pulp

prob = pulp.LpProblem("ward_roster", pulp.LpMinimize)
day = pulp.LpVariable("day_nurses", lowBound=0, cat="Integer")
evening = pulp.LpVariable("evening_nurses", lowBound=0, cat="Integer")
night = pulp.LpVariable("night_nurses", lowBound=0, cat="Integer")
cost = 420 * day + 450 * evening + 510 * night

prob += cost
prob += day >= 14, "day_cover"
prob += evening >= 10, "evening_cover"
prob += night >= 8, "night_cover"
prob += night >= 0.2 * (day + evening + night), "night_share"
prob += cost <= 13000, "board_budget"

prob.writeLp("model.lp")
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
