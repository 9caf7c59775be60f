from ortools.linear_solver import pywraplp

solver = pywraplp.Solver.CreateSolver("SCIP")
inf = solver.infinity()
resin = solver.IntVar(0, inf, "resin")
solvent = solver.IntVar(0, inf, "solvent")
adhesive = solver.IntVar(0, inf, "adhesive")

solver.Add(6 * resin + 4 * solvent + 5 * adhesive <= 100, "reactor_hours")
solver.Add(1.5 * resin + 2.2 * solvent + 1.8 * adhesive <= 38, "feedstock_t")
solver.Add(solvent <= 8, "tank_farm")

solver.Maximize(2300 * resin + 1900 * solvent + 2050 * adhesive)

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
