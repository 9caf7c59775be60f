"""The prompt that states the response format and the solver-code convention to a model."""

from __future__ import annotations

from execrl.problems.optim import OptimProblem

SOLVER_SYSTEM_PROMPT = (
    "You are an expert in operations research. Turn the user's problem into a mathematical "
    "program and solve it with Python. Answer in three tagged sections, in this order: "
    "<think> your reasoning </think> <model> a concise mathematical model (variables, "
    "objective, constraints) </model> <python> a complete Python program </python>. "
    "The program must use an open-source solver (highspy, pulp or ortools), write its model in "
    "LP format to the file model.lp in the current directory, and print the result on its own "
    "line: 'objective: <value>' when an optimal solution exists, otherwise 'status: "
    "infeasible' or 'status: unbounded'."
)


def solver_messages(problem: OptimProblem) -> list[dict[str, str]]:
    """Chat messages for one problem: the system prompt above and the question."""
    return [
        {"role": "system", "content": SOLVER_SYSTEM_PROMPT},
        {"role": "user", "content": problem.question.strip()},
    ]
