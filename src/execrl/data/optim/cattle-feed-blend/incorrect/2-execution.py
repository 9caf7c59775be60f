import pulp

prob = pulp.LpProblem("cattle_feed", pulp.LpMinimize)
corn = pulp.LpVariable("corn", lowBound=0)
soy = pulp.LpVariable("soybean_meal", lowBound=0)
oats = pulp.LpVariable("oats", lowBound=0)

prob += 0.30 * corn + 0.90 * soy + 0.25 * oats
prob += corn + soy + oats == 1000, "batch_kg"
prob += 0.09 * corn + 0.44 * soy + 0.11 * oats >= 180, "protein_kg"
prob += 0.02 * corn + 0.07 * soy + 0.10 * oats <= 60, "fibre_kg"
prob += oat <= 400, "oats_share"

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
