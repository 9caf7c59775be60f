from ortools.linear_solver import pywraplp

solver = pywraplp.Solver.CreateSolver("GLOP")
inf = solver.infinity()
chicken = solver.NumVar(0, inf, "chicken_kg")
fish = solver.NumVar(0, inf, "fish_kg")
pea = solver.NumVar(0, inf, "pea_kg")

solver.Add(chicken + fish + pea == 500, "batch_kg")
solver.Add(0.33 * chicken + 0.35 * fish + 0.30 * pea >= 0.40 * 500, "protein_kg")

solver.Minimize(1.60 * chicken + 2.10 * fish + 1.20 * pea)

with open("model.lp", "w") as handle:
    handle.write(solver.ExportModelAsLpFormat(False))

params = pywraplp.MPSolverParameters()
params.SetDoubleParam(params.RELATIVE_MIP_GAP, 0.0)
result = solver.Solve(params)
if result == pywraplp.Solver.OPTIMAL:
    print(f"objective: {solver.Objective().Value():.6f}")
elif result == pywraplp.Solver.INFEASIBLE:
    print("objective: 0")
elif result == pywraplp.Solver.UNBOUNDED:
    print("status: unbounded")
else:
    raise RuntimeError(f"solver stopped with status {result}")
