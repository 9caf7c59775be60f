from ortools.linear_solver import pywraplp

supply = {"akron": 300, "bristol": 250, "clifton": 200}
demand = {1: 180, 2: 220, 3: 150, 4: 160}
cost = {
    "akron": {1: 4, 2: 6, 3: 9, 4: 5},
    "bristol": {1: 7, 2: 3, 3: 5, 4: 8},
    "clifton": {1: 6, 2: 8, 3: 4, 4: 3},
}

solver = pywraplp.Solver.CreateSolver("GLOP")
ship = {
    (p, s): solver.NumVar(0, solver.infinity(), f"ship_{p}_{s}")
    for p in supply
    for s in demand
}
for p in supply:
    solver.Add(sum(ship[p, s] for s in demand) <= supply[p], f"supply_{p}")
for s in demand:
    solver.Add(sum(ship[p, s] for p in supply) >= demand[s], f"demand_{s}")

solver.Minimize(sum(cost[p][s] * ship[p, s] for p in supply for s in demand))

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
