from ortools.linear_solver import pywraplp

units = {
    # name: (min MW, max MW, $ per MWh, $ for running)
    "coal": (300, 600, 22, 2000),
    "ccgt": (150, 400, 35, 800),
    "peaker": (50, 200, 60, 200),
}
demand_mw, hydro_mw, reserve_mw = 1150, 180, 1265

solver = pywraplp.Solver.CreateSolver("SCIP")
on = {u: solver.BoolVar(f"on_{u}") for u in units}
out = {u: solver.NumVar(0, solver.infinity(), f"mw_{u}") for u in units}
hydro = solver.NumVar(0, hydro_mw, "mw_hydro")

solver.Add(sum(out.values()) + hydro == demand_mw, "demand")
solver.Add(sum(units[u][1] * on[u] for u in units) + hydro_mw >= reserve_mw, "reserve")
for u, (low, high, _, _) in units.items():
    solver.Add(out[u] >= low * on[u], f"min_{u}")
    solver.Add(out[u] <= high * on[u], f"max_{u}")

solver.Minimize(
    sum(units[u][2] * out[u] + units[u][3] * on[u] for u in units) + 8 * hydro
)

with open("model.lp", "w") as handle:
    handle.write(solver.ExportModelAsLpFormat(False))

params = pywraplp.MPSolverParameters()
params.SetDoubleParam(params.RELATIVE_MIP_GAP, 0.0)
result = solver.Solve(params)
if result == pywraplp.Solver.OPTIMAL:
    print(f"objective: {solver.Objective().Value():.6f}")
elif result == pywraplp.Solver.INFEASIBLE:
    print("status: infeasible")
elif result == pywraplp.Solver.UNBOUNDED:
    print("status: unbounded")
else:
    raise RuntimeError(f"solver stopped with status {result}")
