import highspy

orders = {45: 48, 36: 36, 31: 55, 14: 60}
patterns = {
    "A": {45: 2},
    "B": {45: 1, 36: 1, 14: 1},
    "C": {45: 1, 31: 1, 14: 1},
    "D": {36: 2, 14: 2},
    "E": {31: 3},
    "F": {36: 1, 31: 2},
    "G": {14: 7},
    "H": {31: 1, 14: 4},
}

h = highspy.Highs()
h.setOptionValue("output_flag", False)
h.setOptionValue("mip_rel_gap", 0.0)

cut = {p: h.addVariable(lb=0, name=f"cut_{p}") for p in patterns}
for width, ordered in orders.items():
    h.addConstr(
        sum(pieces.get(width, 0) * cut[p] for p, pieces in patterns.items()) >= ordered,
        name=f"width_{width}",
    )

h.setObjective(sum(cut.values()), sense=highspy.ObjSense.kMinimize)

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
