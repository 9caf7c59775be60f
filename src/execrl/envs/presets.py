"""Named environments for every row of spec §2, and the little language that names them.

``environment("qp(p=0.3)")``, ``environment("abs_filter")`` or ``environment({"preset":
"qp", "p": 0.3})`` give everyone the same environment; a full mapping (the fields of
:class:`EnvironmentConfig`) or a YAML file with an ``env:`` key works too. Defaults are the
strongest settings of the source: ``F_abs`` with a = 2 s, λ = 0.5 s, ρ = 0.1, and QP/QAR with
p = 0.3.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

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
from execrl.errors import ExecrlError


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


def parse_call(text: str) -> tuple[str, list[Any], dict[str, Any]]:
    """``"qp(p=0.3)"`` → ``("qp", [], {"p": 0.3})``. Values are YAML scalars."""
    match = _CALL.match(text)
    if not match:
        raise ExecrlError(f"cannot read {text!r}: write a name or name(key=value, ...)")
    name, inner = match.group(1), (match.group(2) or "").strip()
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in inner.split(","))):
        key, eq, value = part.partition("=")
        try:
            if eq:
                kwargs[key.strip()] = yaml.safe_load(value.strip())
            elif kwargs:
                raise ExecrlError(f"in {text!r}: positional value {part!r} after key=value ones")
            else:
                args.append(yaml.safe_load(part))
        except yaml.YAMLError:
            raise ExecrlError(f"in {text!r}: cannot read the value {part!r}") from None
    return name, args, kwargs


def call_preset(registry: Mapping[str, Callable], what: str, name: str, args, kwargs):
    """Call ``registry[name](*args, **kwargs)`` with errors a user can act on."""
    if name not in registry:
        raise ExecrlError(f"unknown {what} {name!r}; choose from {', '.join(registry)}")
    fn = registry[name]
    try:
        inspect.signature(fn).bind(*args, **kwargs)
    except TypeError as exc:
        params = ", ".join(inspect.signature(fn).parameters)
        raise ExecrlError(f"{what} {name}: {exc} (parameters: {params})") from None
    try:
        return fn(*args, **kwargs)
    except ValidationError as exc:
        raise ExecrlError(f"{what} {name}: {_first_error(exc)}") from None
    except (TypeError, ValueError) as exc:  # e.g. a word where a number belongs
        given = ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())])
        raise ExecrlError(f"{what} {name}({given}): {exc}") from None


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"


def environment(spec: str | Mapping | Path | EnvironmentConfig | Environment) -> Environment:
    """An Environment from a preset call string, a mapping (``{"preset": name, **params}`` or
    the fields of EnvironmentConfig), a YAML file (its ``env`` key), or a config."""
    if isinstance(spec, Environment):
        return spec
    if isinstance(spec, EnvironmentConfig):
        return Environment(spec)
    if isinstance(spec, Path) or (isinstance(spec, str) and spec.endswith((".yaml", ".yml"))):
        return environment(load_yaml(Path(spec)).get("env", "mc"))
    if isinstance(spec, str):
        name, args, kwargs = parse_call(spec)
        return Environment(call_preset(PRESETS, "environment", name, args, kwargs))
    if isinstance(spec, Mapping):
        spec = dict(spec)
        if "preset" in spec:
            name = spec.pop("preset")
            return Environment(call_preset(PRESETS, "environment", name, [], spec))
        try:
            return Environment(EnvironmentConfig.model_validate(spec))
        except ValidationError as exc:
            raise ExecrlError(f"environment config: {_first_error(exc)}") from None
    raise ExecrlError(f"cannot build an environment from {type(spec).__name__}")


def load_yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ExecrlError(f"{path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise ExecrlError(f"{path}: not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise ExecrlError(f"{path}: expected a mapping with 'env' and/or 'reward' keys")
    return data
