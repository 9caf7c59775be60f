import pulp

demand = [400, 650, 500, 700]
quarters = range(len(demand))

prob = pulp.LpProblem("pump_plan", pulp.LpMinimize)
regular = [pulp.LpVariable(f"regular_{q + 1}", 0, 500) for q in quarters]
overtime = [pulp.LpVariable(f"overtime_{q + 1}", 0, 150) for q in quarters]
stock = [pulp.LpVariable(f"stock_{q + 1}", 0) for q in quarters]

prob += pulp.lpSum(120 * regular[q] + 165 * overtime[q] + 18 * stock[q] for q in quarters)
for q in quarters:
    previous = 0 if q == 0 else stock[q - 1]
    prob += previous + regular[q] + overtime[q] - stock[q] == demand[q], f"balance_{q + 1}"
prob += stock[-1] >= 80, "end_stock"

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
