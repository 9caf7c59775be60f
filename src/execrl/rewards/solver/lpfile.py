"""A parser for the LP file format and the model features read from it.

The CPLEX LP format as HiGHS (``Highs.writeModel``), PuLP (``LpProblem.writeLP``), OR-Tools
(``Solver.ExportModelAsLpFormat``) and Gurobi (``Model.write``) write it: keyword lines open
the sections ``Maximize``/``Minimize`` (also ``max``, ``min``, ``maximise``, …),
``Subject To`` (``st``, ``s.t.``, ``such that``), ``Bounds``, ``Generals`` (``gen``,
``integers``), ``Binaries`` (``bin``), ``Semi-continuous``, ``SOS``, ``General Constraints``,
``Lazy Constraints``, ``User Cuts`` and ``End``; ``\\`` starts a comment to the end of the line
and ``\\* … *\\`` is a block comment. Expressions are sums of ``[sign] [coefficient] name``
terms, quadratic parts sit in ``[ … ]`` (``x ^ 2``, ``x * y``, the objective's followed by
``/ 2``), and a constraint is ``[name:] [lower op] expression op rhs``, possibly an indicator
``[name:] b = 1 -> expression op rhs``. Line breaks carry no meaning inside a section.

Features (spec "Features of a solved model"): direction, number of binary and of general
integer variables (an integer variable bounded to [0, 1] counts as binary, as HiGHS writes
it), constraints, and for the stage-2 bonus: big-M style constraints and non-linear terms.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from execrl.errors import DataError, UsageError

DEFAULT_BIG_M_RATIO = 10.0
"""A constraint is big-M style when an integer variable's coefficient is at least this many
times larger (in magnitude) than every other coefficient of the row."""


class LpFormatError(DataError):
    """An LP file could not be parsed; the message names the line."""


_SECTION_WORDS = {
    "objective": (
        "max",
        "maximize",
        "maximise",
        "maximum",
        "min",
        "minimize",
        "minimise",
        "minimum",
    ),
    "constraints": ("subject to", "such that", "st", "s.t.", "st."),
    "bounds": ("bounds", "bound"),
    "generals": ("general", "generals", "gen", "integer", "integers"),
    "binaries": ("binary", "binaries", "bin"),
    "semi": ("semi-continuous", "semi-continuous variables", "semis", "semi", "sec"),
    "sos": ("sos", "sos1", "sos2"),
    "general constraints": ("general constraints", "general constraint", "genconstrs"),
    "lazy": ("lazy constraints",),
    "cuts": ("user cuts",),
    "pwl": ("pwlobj",),
    "end": ("end",),
}
_KEYWORDS = {word: section for section, words in _SECTION_WORDS.items() for word in words}
_MAXIMIZE = {"max", "maximize", "maximise", "maximum"}

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<op><=|>=|=<|=>|->|<|>|=|:|\+|-|\*|\^|/|\[|\])
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[^\s:+\-*^<>=/\[\]][^\s:+\-*^<>=]*)
    """,
    re.VERBOSE,
)
_SENSES = {"<=": "<=", "=<": "<=", "<": "<=", ">=": ">=", "=>": ">=", ">": ">=", "=": "="}
_INFINITY = {"inf", "infinity"}


@dataclass(frozen=True)
class _Tok:
    kind: str  # "op" | "number" | "name"
    text: str
    line: int


@dataclass(frozen=True)
class LpRow:
    """One constraint: ``lower? ≤ Σ coefs·x (+ quadratic) sense rhs``."""

    name: str | None
    coefs: dict[str, float]
    sense: str
    """``<=``, ``>=`` or ``=``."""
    rhs: float
    lower: float | None = None
    """For a ranged row written ``lower <= expression <= rhs``."""
    quadratic_terms: int = 0
    indicator: str | None = None
    """The indicator variable of ``b = 1 -> …`` rows."""
    section: str = "constraints"
    """``constraints``, ``lazy`` or ``cuts``."""


@dataclass(frozen=True)
class LpModel:
    """A parsed LP file."""

    direction: str | None
    """``max`` or ``min`` (None without an objective section)."""
    objective: dict[str, float]
    objective_constant: float = 0.0
    objective_quadratic_terms: int = 0
    rows: list[LpRow] = field(default_factory=list)
    bounds: dict[str, tuple[float, float]] = field(default_factory=dict)
    generals: frozenset[str] = frozenset()
    binaries: frozenset[str] = frozenset()
    semicontinuous: frozenset[str] = frozenset()
    sos_sets: int = 0
    general_constraints: int = 0
    variables: tuple[str, ...] = ()
    """Every variable named anywhere, in order of first appearance."""

    def bound(self, name: str) -> tuple[float, float]:
        """(lower, upper); LP defaults to [0, +∞)."""
        return self.bounds.get(name, (0.0, math.inf))


class ModelFeatures(BaseModel):
    """What the LP file says about the model (the run adds objective and status)."""

    model_config = ConfigDict(frozen=True)

    direction: str | None
    n_variables: int
    n_binary: int
    n_integer: int
    """General integer variables (binaries excluded)."""
    n_continuous: int
    n_constraints: int
    n_quadratic_terms: int = 0
    n_indicator_constraints: int = 0
    n_general_constraints: int = 0
    n_sos: int = 0
    big_m_rows: list[str] = []
    """Names (or ``#index``) of big-M style constraints."""

    @property
    def nonlinear(self) -> bool:
        """Quadratic terms, or Gurobi general constraints (max, abs, exp, …)."""
        return self.n_quadratic_terms > 0 or self.n_general_constraints > 0

    @property
    def big_m(self) -> bool:
        """Big-M style rows or indicator constraints (the same logic, written natively)."""
        return bool(self.big_m_rows) or self.n_indicator_constraints > 0

    @property
    def advanced(self) -> bool:
        """Spec stage 2: binary variables, general integers with big-M style constraints, or
        non-linear terms."""
        return self.n_binary > 0 or (self.n_integer > 0 and self.big_m) or self.nonlinear


# -- parsing -----------------------------------------------------------------------------------
def parse_lp(text: str) -> LpModel:
    """Parse LP-format text; raises LpFormatError naming the line of the first problem."""
    sections = _split_sections(text)
    if not sections:
        raise LpFormatError(
            "no sections (the text is empty or only comments); an LP file starts with "
            "Maximize or Minimize"
        )
    direction, objective, constant, obj_quadratic = None, {}, 0.0, 0
    rows: list[LpRow] = []
    bounds: dict[str, tuple[float, float]] = {}
    lists: dict[str, list[str]] = {"generals": [], "binaries": [], "semi": []}
    sos = general = 0
    order: dict[str, None] = {}
    for section, header, tokens in sections:
        if section == "objective":
            direction = "max" if header in _MAXIMIZE else "min"
            objective, constant, obj_quadratic = _parse_objective(tokens)
            order.update(dict.fromkeys(objective))
        elif section in ("constraints", "lazy", "cuts"):
            parsed = _parse_rows(tokens, section)
            rows += parsed
            for row in parsed:
                order.update(dict.fromkeys(row.coefs))
        elif section == "bounds":
            _parse_bounds(tokens, bounds)
            order.update(dict.fromkeys(bounds))
        elif section in lists:
            names = [t.text for t in tokens if t.kind in ("name", "number")]
            lists[section] += names
            order.update(dict.fromkeys(names))
        elif section == "sos":  # "s1: S1:: x1:1 x2:2": one "::" per set
            sos += sum(a.text == b.text == ":" for a, b in itertools.pairwise(tokens))
        elif section == "general constraints":
            general += sum(1 for a, b in itertools.pairwise(tokens) if _is_label(a, b))
    return LpModel(
        direction=direction,
        objective=objective,
        objective_constant=constant,
        objective_quadratic_terms=obj_quadratic,
        rows=rows,
        bounds=bounds,
        generals=frozenset(lists["generals"]),
        binaries=frozenset(lists["binaries"]),
        semicontinuous=frozenset(lists["semi"]),
        sos_sets=sos,
        general_constraints=general,
        variables=tuple(order),
    )


def _split_sections(text: str) -> list[tuple[str, str, list[_Tok]]]:
    text = re.sub(r"\\\*.*?\*\\", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    sections: list[tuple[str, str, list[_Tok]]] = []
    current: tuple[str, str, list[_Tok]] | None = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("\\", 1)[0].strip()
        if not line:
            continue
        key = " ".join(line.lower().split())
        header, rest = key, ""
        words = key.split(" ", 1)
        inline = len(words) > 1 and not words[1].startswith(":")  # "Minimize obj: x + y"
        if key not in _KEYWORDS and words[0] in _SECTION_WORDS["objective"] and inline:
            header, rest = words[0], line.split(None, 1)[1]
        if header in _KEYWORDS:
            if _KEYWORDS[header] == "end":
                current = None
                break
            current = (_KEYWORDS[header], header, [])
            sections.append(current)
            line = rest
            if not line:
                continue
        if current is None:
            raise LpFormatError(
                f"line {lineno}: {raw.strip()[:60]!r} comes before any section; an LP file "
                "starts with Maximize or Minimize"
            )
        current[2].extend(_tokenize(line, lineno))
    return sections


def _tokenize(line: str, lineno: int) -> list[_Tok]:
    tokens = []
    pos = 0
    while pos < len(line):
        match = _TOKEN.match(line, pos)
        if match is None:  # pragma: no cover - the name pattern takes any other character
            raise LpFormatError(f"line {lineno}: cannot read {line[pos : pos + 20]!r}")
        kind = match.lastgroup or ""
        if kind != "space":
            tokens.append(_Tok(kind, match.group(), lineno))
        pos = match.end()
    return tokens


class _Cursor:
    def __init__(self, tokens: list[_Tok]) -> None:
        self.tokens, self.i = tokens, 0

    def peek(self, ahead: int = 0) -> _Tok | None:
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else None

    def take(self) -> _Tok:
        token = self.peek()
        if token is None:
            last = self.tokens[-1].line if self.tokens else 0
            raise LpFormatError(f"line {last}: the section ends in the middle of an expression")
        self.i += 1
        return token

    def done(self) -> bool:
        return self.i >= len(self.tokens)

    def fail(self, what: str) -> LpFormatError:
        token = self.peek()
        if token is not None:
            return LpFormatError(f"line {token.line}: {what} at {token.text!r}")
        last = self.tokens[-1].line if self.tokens else 0
        return LpFormatError(f"line {last}: {what} at the end of the section")


def _is_label(a: _Tok, b: _Tok) -> bool:
    return a.kind in ("name", "number") and b.text == ":"


def _is_sense(token: _Tok | None) -> bool:
    return token is not None and token.kind == "op" and token.text in _SENSES


def _parse_objective(tokens: list[_Tok]) -> tuple[dict[str, float], float, int]:
    cur = _Cursor(tokens)
    if cur.peek(1) is not None and _is_label(cur.peek(), cur.peek(1)):  # type: ignore[arg-type]
        cur.i += 2
    coefs, constant, quadratic = _parse_expression(cur, stop_at_label=True)
    return coefs, constant, quadratic


def _parse_expression(cur: _Cursor, *, stop_at_label: bool = False) -> tuple[dict, float, int]:
    """Terms until a comparison operator (or the end); returns (coefs, constant, #quadratic)."""
    coefs: dict[str, float] = {}
    constant, quadratic = 0.0, 0
    while not cur.done() and not _is_sense(cur.peek()):
        token = cur.peek()
        nxt = cur.peek(1)
        if stop_at_label and nxt is not None and _is_label(token, nxt):  # type: ignore[arg-type]
            break  # a second objective (Gurobi multi-objective): keep the first
        sign = 1.0
        while not cur.done() and cur.peek().text in ("+", "-"):  # type: ignore[union-attr]
            sign = -sign if cur.take().text == "-" else sign
        token = cur.peek()
        if token is None:  # "obj: x +" and then the next section: a sign without its term
            raise cur.fail("expected a term after the sign")
        if token.text == "[":
            quadratic += _parse_quadratic(cur)
        elif token.kind == "number" or _is_infinity(token):
            value = sign * _number(cur.take())
            after = cur.peek()
            if after is not None and after.kind == "name" and not _is_infinity(after):
                name = cur.take().text
                coefs[name] = coefs.get(name, 0.0) + value
                quadratic += _skip_power(cur)
            else:
                constant += value
        elif token.kind == "name":
            name = cur.take().text
            coefs[name] = coefs.get(name, 0.0) + sign
            quadratic += _skip_power(cur)
        else:
            raise cur.fail("expected a term")
    return coefs, constant, quadratic


def _parse_quadratic(cur: _Cursor) -> int:
    """``[ 2 x ^ 2 + 3 x * y ]`` (optionally ``/ 2``): the number of quadratic terms."""
    cur.take()  # "["
    terms = 0
    while True:
        token = cur.take()
        if token.text == "]":
            break
        if token.text in ("^", "*"):
            terms += 1
    if cur.peek() is not None and cur.peek().text == "/":  # type: ignore[union-attr]
        cur.take()
        cur.take()
    return terms


def _skip_power(cur: _Cursor) -> int:
    """A non-standard product outside brackets (``x ^ 2``, ``x * y``) still counts."""
    terms = 0
    while cur.peek() is not None and cur.peek().text in ("^", "*"):  # type: ignore[union-attr]
        cur.take()
        cur.take()
        terms += 1
    return terms


def _parse_rows(tokens: list[_Tok], section: str) -> list[LpRow]:
    cur = _Cursor(tokens)
    rows = []
    while not cur.done():
        name = None
        if cur.peek(1) is not None and _is_label(cur.peek(), cur.peek(1)):  # type: ignore[arg-type]
            name = cur.take().text
            cur.take()
        indicator = _indicator(cur)
        lower = _ranged_lower(cur)
        coefs, constant, quadratic = _parse_expression(cur)
        if not _is_sense(cur.peek()):
            raise cur.fail(f"constraint {name or len(rows) + 1}: expected <=, >= or =")
        sense = _SENSES[cur.take().text]
        rhs = _signed_number(cur) - constant
        rows.append(LpRow(name, coefs, sense, rhs, lower, quadratic, indicator, section=section))
    return rows


def _indicator(cur: _Cursor) -> str | None:
    """``b = 1 ->`` (CPLEX and Gurobi indicator syntax)."""
    first, op, value, arrow = (cur.peek(k) for k in range(4))
    if (
        first is not None
        and first.kind == "name"
        and op is not None
        and op.text == "="
        and value is not None
        and value.kind == "number"
        and arrow is not None
        and arrow.text == "->"
    ):
        cur.i += 4
        return first.text
    return None


def _ranged_lower(cur: _Cursor) -> float | None:
    """``-5 <= x + y <= 3``: a number (or ±inf) directly followed by a comparison."""
    j = 0
    while cur.peek(j) is not None and cur.peek(j).text in ("+", "-"):  # type: ignore[union-attr]
        j += 1
    token = cur.peek(j)
    if token is None or not (token.kind == "number" or _is_infinity(token)):
        return None
    if not _is_sense(cur.peek(j + 1)):
        return None
    value = _signed_number(cur)
    cur.take()  # the comparison: "lower <= expression"
    return value


def _parse_bounds(tokens: list[_Tok], bounds: dict[str, tuple[float, float]]) -> None:
    cur = _Cursor(tokens)
    while not cur.done():
        token = cur.peek()
        if token.kind == "name" and not _is_infinity(token):  # type: ignore[union-attr]
            name = cur.take().text
            lower, upper = bounds.get(name, (0.0, math.inf))
            after = cur.peek()
            if after is not None and after.kind == "name" and after.text.lower() == "free":
                cur.take()
                bounds[name] = (-math.inf, math.inf)
                continue
            if not _is_sense(after):
                raise cur.fail(f"bound of {name}: expected <=, >=, = or free")
            sense = _SENSES[cur.take().text]
            value = _signed_number(cur)
            bounds[name] = _apply(sense, value, lower, upper)
            continue
        value = _signed_number(cur)  # "l <= x [<= u]"
        if not _is_sense(cur.peek()):
            raise cur.fail("expected a comparison after the bound value")
        sense = _SENSES[cur.take().text]
        name_token = cur.take()
        if name_token.kind != "name":
            raise LpFormatError(f"line {name_token.line}: expected a variable name in a bound")
        name = name_token.text
        lower, upper = bounds.get(name, (0.0, math.inf))
        flipped = {"<=": ">=", ">=": "<=", "=": "="}[sense]  # "l <= x" is "x >= l"
        lower, upper = _apply(flipped, value, lower, upper)
        if _is_sense(cur.peek()):
            second = _SENSES[cur.take().text]
            lower, upper = _apply(second, _signed_number(cur), lower, upper)
        bounds[name] = (lower, upper)


def _apply(sense: str, value: float, lower: float, upper: float) -> tuple[float, float]:
    if sense == "<=":
        return lower, value
    if sense == ">=":
        return value, upper
    return value, value


def _signed_number(cur: _Cursor) -> float:
    sign = 1.0
    while not cur.done() and cur.peek().text in ("+", "-"):  # type: ignore[union-attr]
        sign = -sign if cur.take().text == "-" else sign
    token = cur.peek()
    if token is None or not (token.kind == "number" or _is_infinity(token)):
        raise cur.fail("expected a number")
    return sign * _number(cur.take())


def _number(token: _Tok) -> float:
    return math.inf if _is_infinity(token) else float(token.text)


def _is_infinity(token: _Tok) -> bool:
    return token.kind == "name" and token.text.lower() in _INFINITY


# -- features ----------------------------------------------------------------------------------
def model_features(model: LpModel, *, big_m_ratio: float = DEFAULT_BIG_M_RATIO) -> ModelFeatures:
    """Counts and modelling features of a parsed LP model."""
    check_big_m_ratio(big_m_ratio)
    binaries = set(model.binaries)
    generals = set(model.generals) - binaries
    for name in list(generals):
        lower, upper = model.bound(name)
        if lower == 0.0 and upper == 1.0:
            generals.discard(name)
            binaries.add(name)
    integers = binaries | generals
    rows = [r for r in model.rows if r.section != "cuts"]
    big_m = [
        r.name or f"#{i + 1}"
        for i, r in enumerate(rows)
        if r.indicator is None and _is_big_m(r, integers, big_m_ratio)
    ]
    return ModelFeatures(
        direction=model.direction,
        n_variables=len(model.variables),
        n_binary=len(binaries),
        n_integer=len(generals),
        n_continuous=len(set(model.variables) - integers),
        n_constraints=len(rows),
        n_quadratic_terms=model.objective_quadratic_terms + sum(r.quadratic_terms for r in rows),
        n_indicator_constraints=sum(r.indicator is not None for r in rows),
        n_general_constraints=model.general_constraints,
        n_sos=model.sos_sets,
        big_m_rows=big_m,
    )


def check_big_m_ratio(ratio: float) -> float:
    """``ratio`` if it is a usable big-M ratio (a finite number above 1), else a UsageError."""
    if not (isinstance(ratio, int | float) and math.isfinite(ratio) and ratio > 1):
        raise UsageError(
            f"big_m_ratio must be a finite number above 1, got {ratio!r} (default "
            f"{DEFAULT_BIG_M_RATIO:g}: an integer variable's coefficient 10x every other one)"
        )
    return ratio


def lp_features(text: str, *, big_m_ratio: float = DEFAULT_BIG_M_RATIO) -> ModelFeatures:
    """Parse LP text and return its features (raises LpFormatError)."""
    return model_features(parse_lp(text), big_m_ratio=big_m_ratio)


def lp_file_features(
    path: str | Path, *, big_m_ratio: float = DEFAULT_BIG_M_RATIO
) -> ModelFeatures:
    """The features of the LP file at ``path``; an unreadable file, one that is not UTF-8
    text, or one that does not parse is an LpFormatError (a DataError) naming the file."""
    check_big_m_ratio(big_m_ratio)
    path = Path(path)
    if not path.exists():
        raise LpFormatError(f"{path}: no such file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LpFormatError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise LpFormatError(
            f"{path}, line {line}: not UTF-8 text ({data[exc.start : exc.start + 4]!r}); "
            "re-encode the file as UTF-8"
        ) from None
    try:
        return lp_features(text, big_m_ratio=big_m_ratio)
    except LpFormatError as exc:
        raise LpFormatError(f"{path}: {exc}") from None


def _is_big_m(row: LpRow, integers: set[str], ratio: float) -> bool:
    """An integer variable whose coefficient dwarfs every other one of the row: the switch of
    ``x ≤ M·y`` or ``s_j ≥ s_i + p − M(1 − y)``."""
    magnitudes = {name: abs(c) for name, c in row.coefs.items() if c != 0.0}
    if len(magnitudes) < 2:
        return False
    for name in magnitudes.keys() & integers:
        others = max(m for other, m in magnitudes.items() if other != name)
        if magnitudes[name] >= ratio * others:
            return True
    return False
