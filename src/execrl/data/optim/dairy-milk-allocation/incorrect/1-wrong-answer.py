from ortools.linear_solver import pywraplp

solver = pywraplp.Solver.CreateSolver("GLOP")
inf = solver.infinity()
cheese = solver.NumVar(0, inf, "cheese_kg")
yoghurt = solver.NumVar(0, inf, "yoghurt_kg")
butter = solver.NumVar(0, inf, "butter_kg")

solver.Add(10 * cheese + 1.2 * yoghurt + 2.2 * butter <= 12000, "milk_litres")
solver.Add(cheese + yoghurt + butter <= 5000, "packing_kg")
solver.Add(cheese <= 600, "cheese_vats")
solver.Add(yoghurt <= 4000, "yoghurt_demand")

solver.Maximize(3.20 * cheese + 0.55 * yoghurt + 4.10 * butter)

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
