from ortools.linear_solver import pywraplp

solver = pywraplp.Solver.CreateSolver("GLOP")
light = solver.NumVar(0, solver.infinity(), "light")
heavy = solver.NumVar(0, solver.infinity(), "heavy")

solver.Add(0.45 * light + 0.25 * heavy >= 18000, "gasoline")
solver.Add(0.20 * light + 0.15 * heavy >= 8000, "jet_fuel")
solver.Add(0.45 * light + 0.25 * heavy >= 15000, "diesel")
solver.Add(light + heavy <= 50000, "dock")

solver.Minimize(0.078 * light + 0.065 * heavy)

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
