import highspy

h = highspy.Highs()
h.setOptionValue("output_flag", False)

tv = h.addVariable(lb=0, name="tv_k")
radio = h.addVariable(lb=0, name="radio_k")
online = h.addVariable(lb=0, name="online_k")

h.addConstr(tv + radio + online <= 120, name="budget")
h.addConstr(tv <= 50, name="tv_airtime")
h.addConstr(online >= 0.25, name="online_share")
h.addConstr(radio <= tv, name="radio_vs_tv")

h.setObjective(12.5 * tv + 11 * radio + 9 * online, sense=highspy.ObjSense.kMaximize)

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
