import highspy

h = highspy.Highs()
h.setOptionValue("output_flag", False)

flour = h.addVariable(lb=0, name="flour_t")
bran = h.addVariable(lb=0, name="bran_t")

h.addConstr(flour + 0.8 * bran <= 1200, name="mill_hours")
h.addConstr(flour >= 900, name="flour_contract")
h.addConstr(bran >= 500, name="bran_contract")

h.setObjective(40 * flour + 25 * bran, sense=highspy.ObjSense.kMaximize)

h.writeModel("model.lp")
h.run()
while h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
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
