import highspy

need = [6, 8, 22, 26, 18, 10]
wage = [210, 168, 168, 168, 168, 210]
periods = range(6)

h = highspy.Highs()
h.setOptionValue("output_flag", False)
h.setOptionValue("mip_rel_gap", 0.0)

start = [h.addIntegral(lb=0, name=f"start_{4 * s:02d}h") for s in periods]
for p in periods:
    h.addConstr(start[(p - 1) % 6] + start[p] >= need[p], name=f"cover_{4 * p:02d}h")

h.setObjective(sum(wage[s] * start[s] for s in periods), sense=highspy.ObjSense.kMinimize)

h.writeModel("model.lp")
h.run()
while h.getSolution().col_value[5] < 1:  # want some agents starting at 20:00
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
