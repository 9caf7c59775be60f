import pulp

cost = [4.0, 2.5, 3.5, 1.5, 5.0, 2.0]
npv = [9.5, 5.2, 7.9, 3.1, 11.8, 4.6]
teams = [3, 2, 3, 1, 4, 2]
projects = range(6)

prob = pulp.LpProblem("rd_portfolio", pulp.LpMaximize)
fund = [pulp.LpVariable(f"fund_{i + 1}", cat="Binary") for i in projects]

prob += pulp.lpSum(npv[i] * fund[i] for i in projects)
prob += pulp.lpSum(cost[i] * fund[i] for i in projects) <= 12, "budget"
prob += pulp.lpSum(teams[i] * fund[i] for i in projects) <= 9, "lab_teams"
prob += fund[3] <= fund[1], "p4_needs_p2"
prob += fund[0] + fund[4] <= 1, "p1_or_p5"

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
