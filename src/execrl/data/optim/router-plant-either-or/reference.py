import pulp

packing_cap = 70
m_north = 3 * packing_cap - 180  # largest possible overshoot of Northgate hours
m_south = 4 * packing_cap - 200  # largest possible overshoot of Southgate hours

prob = pulp.LpProblem("router_plan", pulp.LpMaximize)
home = pulp.LpVariable("home", lowBound=0, cat="Integer")
pro = pulp.LpVariable("pro", lowBound=0, cat="Integer")
south = pulp.LpVariable("use_southgate", cat="Binary")

prob += 50 * home + 40 * pro
prob += 3 * home + 2 * pro <= 180 + m_north * south, "northgate_hours"
prob += 2 * home + 4 * pro <= 200 + m_south * (1 - south), "southgate_hours"
prob += home + pro <= packing_cap, "packing"

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
