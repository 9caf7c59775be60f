"""Named environments for every row of spec §2, and the little language that names them.

``environment("qp(p=0.3)")``, ``environment("abs_filter")`` or ``environment({"preset":
"qp", "p": 0.3})`` give everyone the same environment; a full mapping (the fields of
:class:`EnvironmentConfig`) or a YAML file with an ``env:`` key works too. Defaults are the
strongest settings of the source: ``F_abs`` with a = 2 s, λ = 0.5 s, ρ = 0.1, and QP/QAR with
p = 0.3.
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, get_args

import yaml
from pydantic import BaseModel, ValidationError

from execrl.envs.environment import Environment, EnvironmentConfig
from execrl.envs.operators import (
    AbsoluteFilter,
    AbsoluteLimit,
    CapLimit,
    LengthFilter,
    RankedReferenceLimit,
    RelativeFilter,
    RelativeLimit,
)
from execrl.errors import ConfigError, UsageError, describe_validation_error, validation_issues


def _with_cap(name: str, cap_s: float | None) -> str:
    """The preset's name, with the cap when it is not the problem's own limit."""
    if cap_s is None:
        return name
    return f"{name[:-1]}, cap_s={cap_s:g})" if name.endswith(")") else f"{name}(cap_s={cap_s:g})"


def rlvr(cap_s: float | None = None) -> EnvironmentConfig:
    """Standard RLVR: the original tests T0 only, no optimization tests."""
    return EnvironmentConfig(
        name=_with_cap("rlvr", cap_s), correctness="original", optimization=False, cap_s=cap_s
    )


def mc(cap_s: float | None = None) -> EnvironmentConfig:
    """MC: more correctness tests, T0 ∪ T+, no optimization tests."""
    return EnvironmentConfig(name=_with_cap("mc", cap_s), optimization=False, cap_s=cap_s)


def mc_mo(cap_s: float | None = None) -> EnvironmentConfig:
    """MC+MO: every optimization test under the cap; any timeout closes the gate (ρ = 0)."""
    return EnvironmentConfig(name=_with_cap("mc_mo", cap_s), tolerance=0.0, cap_s=cap_s)


def abs_filter(
    a: float = 2.0,
    limit: float = 0.5,
    rho: float = 0.1,
    aggregate: str = "mean",
    cap_s: float | None = None,
) -> EnvironmentConfig:
    """Absolute-duration filter F_abs^a, absolute limit λ = ``limit``, tolerance ρ."""
    return EnvironmentConfig(
        name=_with_cap(f"abs_filter(a={a:g}, limit={limit:g}, rho={rho:g})", cap_s),
        filter=AbsoluteFilter(a=a, aggregate=aggregate),
        limit=AbsoluteLimit(seconds=limit),
        tolerance=rho,
        cap_s=cap_s,
    )


def len_filter(
    L: float = 1e6, limit: float = 0.5, rho: float = 0.1, cap_s: float | None = None
) -> EnvironmentConfig:
    """Length filter F_len^L (characters of input + expected output), absolute limit, ρ."""
    if not L >= 1:
        raise UsageError(f"L must be at least 1 (characters), got {L:g}")
    return EnvironmentConfig(
        name=_with_cap(f"len_filter(L={L:g}, limit={limit:g}, rho={rho:g})", cap_s),
        filter=LengthFilter(max_chars=int(L)),
        limit=AbsoluteLimit(seconds=limit),
        tolerance=rho,
        cap_s=cap_s,
    )


def rel_filter(
    r: float = 50, limit: float = 0.5, rho: float = 0.1, cap_s: float | None = None
) -> EnvironmentConfig:
    """Relative filter F_rel^r (drop tests slower than the r-th percentile), absolute limit, ρ."""
    return EnvironmentConfig(
        name=_with_cap(f"rel_filter(r={r:g}, limit={limit:g}, rho={rho:g})", cap_s),
        filter=RelativeFilter(r=r),
        limit=AbsoluteLimit(seconds=limit),
        tolerance=rho,
        cap_s=cap_s,
    )


def abs_timeout(limit: float = 0.5, rho: float = 0.1, cap_s: float | None = None):
    """Every optimization test under an absolute intended limit λ = ``limit``, tolerance ρ."""
    return EnvironmentConfig(
        name=_with_cap(f"abs_timeout(limit={limit:g}, rho={rho:g})", cap_s),
        limit=AbsoluteLimit(seconds=limit),
        tolerance=rho,
        cap_s=cap_s,
    )


def rel_timeout(p: float = 50, rho: float = 0.1, cap_s: float | None = None):
    """Relative limit λ_t = quantile_p(D_t), tolerance ρ."""
    return EnvironmentConfig(
        name=_with_cap(f"rel_timeout(p={p:g}, rho={rho:g})", cap_s),
        limit=RelativeLimit(p=p),
        tolerance=rho,
        cap_s=cap_s,
    )


def ranked_timeout(
    p: float = 30, agg: str = "max", rho: float = 0.1, cap_s: float | None = None
) -> EnvironmentConfig:
    """Ranked-reference limit: the ``agg`` (max = "ranked-worst", or median) duration of the
    best p% references, tolerance ρ."""
    return EnvironmentConfig(
        name=_with_cap(f"ranked_timeout(p={p:g}, agg={agg}, rho={rho:g})", cap_s),
        limit=RankedReferenceLimit(p=p, aggregate=agg),
        tolerance=rho,
        cap_s=cap_s,
    )


def qar(p: float = 0.3, cap_s: float | None = None) -> EnvironmentConfig:
    """QAR ranking: mean per-test percentile, duration gate p; ρ = 1 and the cap as the limit."""
    return EnvironmentConfig(
        name=_with_cap(f"qar(p={p:g})", cap_s), ranking="qar", gate=p, limit=CapLimit(), cap_s=cap_s
    )


def qp(p: float = 0.3, cap_s: float | None = None) -> EnvironmentConfig:
    """QP ranking: leaderboard percentile, duration gate p; ρ = 1 and the cap as the limit."""
    return EnvironmentConfig(
        name=_with_cap(f"qp(p={p:g})", cap_s), ranking="qp", gate=p, limit=CapLimit(), cap_s=cap_s
    )


PRESETS: dict[str, Callable[..., EnvironmentConfig]] = {
    "rlvr": rlvr,
    "mc": mc,
    "mc_mo": mc_mo,
    "abs_filter": abs_filter,
    "len_filter": len_filter,
    "rel_filter": rel_filter,
    "abs_timeout": abs_timeout,
    "rel_timeout": rel_timeout,
    "ranked_timeout": ranked_timeout,
    "qar": qar,
    "qp": qp,
}
"""Every named environment of spec §2; ``describe_presets()`` lists them with parameters."""


def describe_presets(presets: Mapping[str, Callable] = PRESETS) -> list[tuple[str, str, str]]:
    """(name, parameters with defaults, one-line description) for each preset."""
    rows = []
    for name, fn in presets.items():
        params = ", ".join(
            f"{p.name}={p.default!r}" for p in inspect.signature(fn).parameters.values()
        )
        doc = (fn.__doc__ or "").strip().split("\n\n")[0]
        rows.append((name, params, " ".join(doc.split())))
    return rows


# --------------------------------------------------------------------------------------------
# The naming language: name, name(k=v, ...), a mapping, or a YAML file.

_CALL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_INT = re.compile(r"^[+-]?[0-9]+$")
_FLOAT = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$")
_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_CONSTANTS = {"true": True, "false": False, "none": None, "null": None}


def parse_value(text: str) -> Any:
    """One value of a spec, read as Python reads a literal (and YAML 1.2 a scalar): ``3e-1``
    and ``0.3`` are the float 0.3, ``10`` is the int 10, ``true``/``false`` are booleans,
    ``none``/``null`` is None, and a bare word (``median``) or a quoted string is text."""
    text = text.strip()
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if text.lower() in _CONSTANTS:
        return _CONSTANTS[text.lower()]
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if _WORD.match(text):
        return text
    raise ConfigError(
        f"cannot read the value {text!r}: write a number (0.3, 3e-1, 10), true/false, "
        "a word or a 'quoted string'"
    )


def parse_call(text: str) -> tuple[str, list[Any], dict[str, Any]]:
    """``"qp(p=0.3)"`` → ``("qp", [], {"p": 0.3})``; values as :func:`parse_value` reads them."""
    match = _CALL.match(text)
    if not match:
        raise ConfigError(f"cannot read {text!r}: write a name or name(key=value, ...)")
    name, inner = match.group(1), (match.group(2) or "").strip()
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in inner.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip()
        try:
            if eq and key in kwargs:
                raise ConfigError(f"{key} is given twice")
            if eq:
                kwargs[key] = parse_value(value)
            elif kwargs:
                raise ConfigError(f"positional value {part!r} after key=value ones")
            else:
                args.append(parse_value(part))
        except ConfigError as exc:
            raise ConfigError(f"in {text!r}: {exc}") from None
    return name, args, kwargs


def call_preset(registry: Mapping[str, Callable], what: str, name: str, args, kwargs):
    """Call ``registry[name](*args, **kwargs)`` with errors a user can act on: each names the
    call as written and the user's parameter (``qp(p=2): p must be in [0, 1]``), never an
    internal field."""
    if name not in registry:
        raise ConfigError(f"unknown {what} {name!r}; choose from {', '.join(registry)}")
    fn = registry[name]
    signature = inspect.signature(fn)
    call = f"{what} {shown_call(name, args, kwargs)}"
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        params = ", ".join(signature.parameters)
        raise ConfigError(f"{call}: {exc} (parameters: {params})") from None
    _check_types(fn, bound.arguments, call)
    try:
        return fn(*args, **kwargs)
    except UsageError as exc:  # a preset's own check, in its parameters' names
        raise ConfigError(f"{call}: {exc}") from None
    except ValidationError as exc:
        raise ConfigError(f"{call}: {_parameter_error(exc, list(signature.parameters))}") from None
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{call}: {exc}") from None


def shown_call(name: str, args: list[Any], kwargs: dict[str, Any]) -> str:
    """``qp(p=2)``: a call as the user wrote it (numbers as ``:g`` shows them)."""
    given = [*map(_shown, args), *(f"{k}={_shown(v)}" for k, v in kwargs.items())]
    return f"{name}({', '.join(given)})" if given else name


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str) and _WORD.match(value):
        return value
    return repr(value)


def _check_types(fn: Callable, arguments: dict[str, Any], call: str) -> None:
    """Numbers where a preset takes a number (finite, not a boolean), text where it takes a
    word: checked before the preset runs, so its messages and names never see a wrong type."""
    try:
        parameters = inspect.signature(fn, eval_str=True).parameters
        hints = {name: p.annotation for name, p in parameters.items()}
    except (NameError, TypeError):  # an annotation we cannot evaluate: leave it to the preset
        return
    for param, value in arguments.items():
        kinds = get_args(hints.get(param)) or (hints.get(param),)
        if value is None and type(None) in kinds:
            continue
        if float in kinds:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"{call}: {param} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise ConfigError(f"{call}: {param} must be a finite number, got {value!r}")
        elif str in kinds and not isinstance(value, str):
            raise ConfigError(f"{call}: {param} must be a word, got {value!r}")


_PARAMETER_OF = {"gate": "p", "seconds": "limit", "max_chars": "L", "tolerance": "rho"}
"""The preset parameter behind each internal field whose name differs (``aggregate`` is
``agg`` in ``ranked_timeout``)."""

_MODELS: dict[str, type[BaseModel]] = {
    cls.__name__: cls
    for cls in (
        EnvironmentConfig,
        AbsoluteFilter,
        LengthFilter,
        RelativeFilter,
        AbsoluteLimit,
        RelativeLimit,
        RankedReferenceLimit,
    )
}


def _parameter_error(exc: ValidationError, params: list[str]) -> str:
    """The first validation error in the user's words: ``p must be in [0, 1]``."""
    first = validation_issues(exc)[0]
    field = str(first.loc[-1]) if first.loc else "value"
    param = field
    if field not in params:
        alias = "agg" if field == "aggregate" else _PARAMETER_OF.get(field, field)
        param = alias if alias in params else field
    interval = _interval(_MODELS.get(exc.title), field)
    if interval and first.type in (
        "greater_than",
        "greater_than_equal",
        "less_than",
        "less_than_equal",
    ):
        return f"{param} must be {interval}"
    message = first.message
    if message.startswith("must be"):  # (a time limit's one message: execrl.problems.models)
        return f"{param} {message}"
    if message.startswith("Input should be"):
        return f"{param} must be{message.removeprefix('Input should be')}"
    return f"{param}: {message}"


def _interval(model: type[BaseModel] | None, field: str) -> str | None:
    """A field's numeric range from its constraints: ``in [0, 1]``, ``> 0``."""
    info = model.model_fields.get(field) if model is not None else None
    if info is None:
        return None
    low = high = None
    for c in info.metadata:
        if getattr(c, "gt", None) is not None:
            low = ("(", c.gt)
        elif getattr(c, "ge", None) is not None:
            low = ("[", c.ge)
        elif getattr(c, "lt", None) is not None:
            high = (")", c.lt)
        elif getattr(c, "le", None) is not None:
            high = ("]", c.le)
    if low and high:
        return f"in {low[0]}{low[1]:g}, {high[1]:g}{high[0]}"
    if low:
        return f"{'>' if low[0] == '(' else '≥'} {low[1]:g}"
    if high:
        return f"{'<' if high[0] == ')' else '≤'} {high[1]:g}"
    return None


def environment(spec: str | Mapping | Path | EnvironmentConfig | Environment) -> Environment:
    """An Environment from a preset call string, a mapping (``{"preset": name, **params}`` or
    the fields of EnvironmentConfig), a YAML file (its ``env`` key), or a config. Every
    mistake is a ConfigError naming the spec (or file) and the parameter."""
    if isinstance(spec, Environment):
        return spec
    if isinstance(spec, EnvironmentConfig):
        return Environment(spec)
    if isinstance(spec, Path) or (isinstance(spec, str) and spec.endswith((".yaml", ".yml"))):
        return _environment_file(Path(spec))
    if isinstance(spec, str):
        name, args, kwargs = parse_call(spec)
        return Environment(call_preset(PRESETS, "environment", name, args, kwargs))
    if isinstance(spec, Mapping):
        spec = dict(spec)
        if "preset" in spec:
            name = spec.pop("preset")
            if not isinstance(name, str):
                raise ConfigError(f"environment preset: expected a name, got {name!r}")
            return Environment(call_preset(PRESETS, "environment", name, [], spec))
        try:
            return Environment(EnvironmentConfig.model_validate(spec))
        except ValidationError as exc:
            raise ConfigError(f"environment config: {describe_validation_error(exc)}") from None
    raise ConfigError(
        f"cannot build an environment from {type(spec).__name__} {spec!r}: give a preset such "
        "as 'qp(p=0.3)', a mapping or a YAML file"
    )


def validate_env_spec(spec: str | Mapping | Path) -> None:
    """Check an environment spec completely (the preset's name, each parameter's type and
    range, a YAML file's ``env:`` key) without starting anything; a ConfigError says what is
    wrong. Call it at the edge (a CLI option, a config file) before a model or a sandbox
    starts."""
    environment(spec)


def _environment_file(path: Path) -> Environment:
    data = load_yaml(path)
    if "env" not in data:
        found = ", ".join(map(str, data)) or "nothing"
        raise ConfigError(f"{path}: no 'env:' key (found: {found}); add one, e.g. 'env: qp(p=0.3)'")
    value = data["env"]
    if isinstance(value, str) and value.endswith((".yaml", ".yml")):
        raise ConfigError(f"{path}: env: expected a preset or a mapping, not another file")
    try:
        return environment(value)
    except ConfigError as exc:
        raise ConfigError(f"{path}: env: {exc}") from None


def load_yaml(path: Path) -> dict:
    """A YAML config file as a mapping; every way it cannot be read is a ConfigError naming
    the file (and the line and column of a syntax error)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte {exc.start}: {exc.object[exc.start : exc.start + 4]!r});"
            " save it as UTF-8"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({_yaml_problem(exc)})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping with 'env' and/or 'reward' keys")
    return data


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """PyYAML's several-line message as one: where (line, column) and what."""
    problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return f"line {mark.line + 1}, column {mark.column + 1}: {problem}" if mark else problem
