import highspy

fixed = {"dover": 4800, "easton": 3600, "fairview": 4100}
capacity = {"dover": 900, "easton": 600, "fairview": 750}
need = [350, 280, 420, 300]
ship = {
    "dover": [6, 9, 4, 8],
    "easton": [5, 3, 9, 7],
    "fairview": [8, 6, 5, 3],
}
regions = range(len(need))

h = highspy.Highs()
h.setOptionValue("output_flag", False)
h.setOptionValue("mip_rel_gap", 0.0)

is_open = {c: h.addBinary(name=f"open_{c}") for c in fixed}
flow = {
    (c, r): h.addVariable(lb=0, name=f"flow_{c}_{r + 1}") for c in fixed for r in regions
}

for r in regions:
    h.addConstr(sum(flow[c, r] for c in fixed) == need[r], name=f"need_{r + 1}")
for c in fixed:
    h.addConstr(
        sum(flow[c, r] for r in regions) <= capacity[c], name=f"cap_{c}"
    )

h.setObjective(
    sum(fixed[c] * is_open[c] for c in fixed)
    + sum(ship[c][r] * flow[c, r] for c in fixed for r in regions),
    sense=highspy.ObjSense.kMinimize,
)

h.writeModel("model.lp")
h.run()

status = h.getModelStatus()
if status == highspy.HighsModelStatus.kOptimal:
    print(f"objective: {h.getInfo().objective_function_value:.6f}")
elif status == highspy.HighsModelStatus.kInfeasible:
    print("status: infeasible")
elif status == highspy.HighsModelStatus.kUnbounded:
    print("status: unbounded")
else:
    raise RuntimeError(f"HiGHS stopped with status {h.modelStatusToString(status)}")
