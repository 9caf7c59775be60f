import highspy

price = [2.10, 2.25, 2.40]
min_kg = [1500, 1000, 800]
max_kg = [3000, 2500, 2000]
fee = [600, 250, 100]
suppliers = range(3)

h = highspy.Highs()
h.setOptionValue("output_flag", False)
h.setOptionValue("mip_rel_gap", 0.0)

buy = [h.addVariable(lb=0, name=f"kg_{i + 1}") for i in suppliers]
use = [h.addBinary(name=f"use_{i + 1}") for i in suppliers]

h.addConstr(sum(buy) == 3600, name="need_kg")
for i in suppliers:
    h.addConstr(buy[i] >= min_kg[i] * use[i], name=f"min_order_{i + 1}")
    h.addConstr(buy[i] <= max_kg[i] * use[i], name=f"max_order_{i + 1}")

h.setObjective(
    sum(price[i] * buy[i] for i in suppliers),
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
