import highspy

labour = {"shirts": 2.5, "shorts": 1.5, "jackets": 4}
cloth = {"shirts": 3, "shorts": 2, "jackets": 5}
profit = {"shirts": 11, "shorts": 7, "jackets": 16}
rent = {"shirts": 480, "shorts": 300, "jackets": 520}
big_m = {g: math.floor(min(220 / labour[g], 260 / cloth[g])) for g in labour}

h = highspy.Highs()
h.setOptionValue("output_flag", False)
h.setOptionValue("mip_rel_gap", 0.0)

make = {g: h.addIntegral(lb=0, name=f"make_{g}") for g in labour}
rented = {g: h.addBinary(name=f"rent_{g}") for g in labour}

h.addConstr(sum(labour[g] * make[g] for g in labour) <= 220, name="labour_h")
h.addConstr(sum(cloth[g] * make[g] for g in labour) <= 260, name="cloth_m")
for g in labour:
    h.addConstr(make[g] <= big_m[g] * rented[g], name=f"line_{g}")

h.setObjective(
    sum(profit[g] * make[g] - rent[g] * rented[g] for g in labour),
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
