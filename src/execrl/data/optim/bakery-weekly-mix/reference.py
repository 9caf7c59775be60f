import highspy

h = highspy.Highs()
h.setOptionValue("output_flag", False)

sourdough = h.addVariable(lb=0, name="sourdough")
rye = h.addVariable(lb=0, name="rye")
seeded = h.addVariable(lb=0, name="seeded")

h.addConstr(0.5 * sourdough + 0.4 * rye + 0.6 * seeded <= 600, name="flour_kg")
h.addConstr(12 * sourdough + 15 * rye + 10 * seeded <= 14400, name="oven_min")
h.addConstr(6 * sourdough + 4 * rye + 8 * seeded <= 9600, name="labour_min")
h.addConstr(rye >= 150, name="cafe_rye")

h.setObjective(
    2.40 * sourdough + 2.10 * rye + 2.90 * seeded, sense=highspy.ObjSense.kMaximize
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
