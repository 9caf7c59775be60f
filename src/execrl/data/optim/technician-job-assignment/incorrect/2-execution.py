import highspy

hours = {
    "ana": {1: 7, 2: 9, 3: 6, 4: 8, 5: 10},
    "ben": {1: 8, 2: 6, 3: 7, 4: 9, 5: 7},
    "chloe": {1: 6, 3: 8, 4: 7, 5: 9},
    "dev": {1: 9, 2: 8, 3: 9, 4: 6, 5: 8},
    "eli": {1: 7, 2: 7, 3: 5, 4: 9, 5: 6},
}
jobs = [1, 2, 3, 4, 5]

h = highspy.Highs()
h.setOptionValue("output_flag", False)
h.setOptionValue("mip_rel_gap", 0.0)

x = {(t, j): h.addBinary(name=f"x_{t}_{j}") for t in hours for j in jobs}
for t in hours:
    h.addConstr(sum(x[t, j] for j in hours[t]) == 1, name=f"one_job_{t}")
for j in jobs:
    h.addConstr(sum(x[t, j] for t in hours if j in hours[t]) == 1, name=f"job_{j}")

h.setObjective(
    sum(hours[t][j] * x[t, j] for t, j in x), sense=highspy.ObjSense.kMinimize
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
