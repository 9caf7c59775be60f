import highspy

h = highspy.Highs()
h.setOptionValue("output_flag", False)
h.setOptionValue("mip_rel_gap", 0.0)

bought = h.addIntegral(lb=0, name="wholesale_packs")
resold = h.addVariable(lb=0, name="banner_packs")
video = h.addIntegral(lb=0, name="video_packs")

h.addConstr(resold + 2 * video <= bought, name="pack_usage")
h.addConstr(bought >= 50, name="min_wholesale")
h.addConstr(video >= 10, name="min_video")

h.setObjective(
    3.10 * resold + (5.50 - 0.35) * video - 2.40 * bought,
    sense=highspy.ObjSense.kMaximize,
)
h.writeModel("model.lp")
h.run()

status = h.getModelStatus()
if status == highspy.HighsModelStatus.kUnboundedOrInfeasible:
    status = highspy.HighsModelStatus.kInfeasible

if status == highspy.HighsModelStatus.kOptimal:
    print(f"objective: {h.getInfo().objective_function_value:.6f}")
elif status == highspy.HighsModelStatus.kInfeasible:
    print("status: infeasible")
elif status == highspy.HighsModelStatus.kUnbounded:
    print("status: unbounded")
else:
    raise RuntimeError(f"HiGHS stopped with status {h.modelStatusToString(status)}")

