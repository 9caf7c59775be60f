import highspy

h = highspy.Highs()
h.setOptionValue("output_flag", False)

cap = 4000  # no bond above 40% of $10m, in thousands
muni = h.addVariable(lb=0, ub=cap, name="municipal")
corp_a = h.addVariable(lb=0, ub=cap, name="corporate_a")
corp_b = h.addVariable(lb=0, ub=cap, name="corporate_b")
treasury = h.addVariable(lb=0, ub=cap, name="treasury")

h.addConstr(muni + corp_a + corp_b + treasury == 10000, name="invest_all")
h.addConstr(muni + treasury >= 3000, name="safe_share")
h.addConstr(corp_b <= 2500, name="corp_b_cap")
h.addConstr(6 * muni + 9 * corp_a + 4 * corp_b + 3 * treasury <= 60000, name="duration")

h.setObjective(
    [0.042, 0.058, 0.071, 0.036],
    sense=highspy.ObjSense.kMaximize,
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
