from ortools.linear_solver import pywraplp

rent = {"aster": 900, "birch": 650, "cedar": 500, "dahlia": 380}
size = {"aster": 12, "birch": 9, "cedar": 8, "dahlia": 6}

solver = pywraplp.Solver.CreateSolver("CBC")
book = {r: solver.BoolVar(f"book_{r}") for r in rent}
tables = {r: solver.IntVar(0, solver.infinity(), f"tables_{r}") for r in rent}

solver.Add(8 * sum(tables.values()) >= 230, "seats")
for r in rent:
    solver.Add(tables[r] <= size[r] * book[r], f"room_{r}")
solver.Add(book["aster"] + book["birch"] >= 1, "stage")

solver.Minimize(sum(rent[r] * book[r] for r in rent) + 45 * sum(tables.values()))

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
