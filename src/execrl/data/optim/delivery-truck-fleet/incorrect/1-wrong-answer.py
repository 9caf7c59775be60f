import pulp

prob = pulp.LpProblem("truck_fleet", pulp.LpMinimize)
small = pulp.LpVariable("small_trucks", lowBound=0, cat="Integer")
large = pulp.LpVariable("large_trucks", lowBound=0, cat="Integer")

prob += 690 * small + 290 * large
prob += 10 * small + 26 * large >= 400, "tonnes_per_day"
prob += small + 2 * large <= 34, "drivers"
prob += large <= 12, "insurer_cap"

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
