"""Program transformations a dataset's own harness applies before running a program.

The APPS / TACO harness (``testing_util.run_test``) runs a stdin program as the body of a
function, so a solution that ends early with a top-level ``return`` passes there, while
``python3 prog.py`` rejects it (``SyntaxError: 'return' outside function``). Problems loaded
from APPS/TACO set ``Problem.stdin_as_function``; the executor passes their stdio programs
through ``wrap_stdin_program`` first.
"""

from __future__ import annotations

import ast

WRAPPER_NAME = "_execrl_stdin_main"


def wrap_stdin_program(code: str) -> str:
    """``code`` with its module body moved into a function that is then called, when (and only
    when) the body has a top-level ``return``; any other program comes back unchanged.

    Every name the module body binds is declared ``global`` in the function, so the program's
    variables stay module globals (its own ``global x`` statements and its speed are as
    before). ``from __future__`` and ``from m import *`` stay at module level, where Python
    requires them. A program that does not parse comes back unchanged, so the sandbox reports
    the syntax error as usual.
    """
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return code
    if not _has_top_level(tree.body, ast.Return) or _has_top_level(
        tree.body, (ast.Yield, ast.YieldFrom, ast.Await)
    ):
        return code
    hoisted = [s for s in tree.body if _must_stay_at_module_level(s)]
    body = [s for s in tree.body if s not in hoisted and not isinstance(s, ast.Global)]
    names = sorted(_bound_names(tree.body))
    function_body: list[ast.stmt] = [ast.Global(names=names)] if names else []
    function = ast.FunctionDef(
        name=WRAPPER_NAME,
        args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=function_body + (body or [ast.Pass()]),
        decorator_list=[],
        type_params=[],
    )
    call = ast.Expr(ast.Call(func=ast.Name(WRAPPER_NAME, ast.Load()), args=[], keywords=[]))
    module = ast.Module(body=[*hoisted, function, call], type_ignores=[])
    return ast.unparse(ast.fix_missing_locations(module)) + "\n"


def _must_stay_at_module_level(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.ImportFrom) and (
        stmt.module == "__future__" or any(alias.name == "*" for alias in stmt.names)
    )


class _ModuleScope(ast.NodeVisitor):
    """Visits the module's own scope: not into function, class, lambda or comprehension
    bodies (their names are theirs), but into if/for/while/try/with/match blocks."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.found: set[type] = set()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.names.add(node.name)
        for default in (*node.args.defaults, *node.args.kw_defaults, *node.decorator_list):
            if default is not None:
                self.visit(default)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.names.add(node.name)
        for expr in (*node.bases, *node.decorator_list):
            self.visit(expr)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        return

    def _comprehension(self, node: ast.AST) -> None:
        # Only the first iterable is evaluated in the enclosing scope; a walrus inside binds
        # there too, which ast.walk finds.
        for sub in ast.walk(node):
            if isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
                self.names.add(sub.target.id)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store | ast.Del):
            self.names.add(node.id)

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name != "*":
                self.names.add(alias.asname or alias.name.split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.names.update(node.names)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.names.add(node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self.names.add(node.rest)
        self.generic_visit(node)

    def generic_visit(self, node: ast.AST) -> None:
        self.found.add(type(node))
        super().generic_visit(node)


def _scan(body: list[ast.stmt]) -> _ModuleScope:
    scope = _ModuleScope()
    for stmt in body:
        scope.visit(stmt)
    return scope


def _bound_names(body: list[ast.stmt]) -> set[str]:
    return _scan([s for s in body if not _must_stay_at_module_level(s)]).names


def _has_top_level(body: list[ast.stmt], kinds: type | tuple[type, ...]) -> bool:
    found = _scan(body).found | {type(s) for s in body}
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    return any(issubclass(k, kinds) for k in found)
