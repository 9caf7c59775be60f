import highspy

h = highspy.Highs()
h.setOptionValue("output_flag", False)

wheat = h.addVariable(lb=0, ub=10000, name="wheat_t")
barley = h.addVariable(lb=0, name="barley_t")

h.addConstr(barley <= 5000, name="silo_t")
h.addConstr(barley >= 200, name="barley_promise")

h.setObjective((236 - 210 - 14) * wheat + 3 * barley, sense=highspy.ObjSense.kMaximize)

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
