import highspy

h = highspy.Highs()
h.setOptionValue("output_flag", False)
h.setOptionValue("mip_rel_gap", 0.0)

hall = h.addIntegral(lb=0, ub=12, name="hall_modules")
mezz = h.addIntegral(lb=0, name="mezzanine_modules")
build = h.addBinary(name="build_mezzanine")

h.addConstr(mezz <= 20 * build, name="mezzanine_exists")
h.addConstr(6 * hall + 9 * mezz <= 300, name="crew_hours")
h.addConstr(40 * hall + 40 * mezz <= 1500, name="fire_code")

h.setObjective(95 * hall + 95 * mezz - 1400 * build, sense=highspy.ObjSense.kMaximize)

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
