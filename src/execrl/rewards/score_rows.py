"""The rows of a scoring run's results file (``execrl score --programs --out FILE``): one JSON
object per program with its reward, every signal of its Outcome, how it was scored, and its
ExecutionRecord, so a row can be rescored later; and the rule for resuming such a file."""

from __future__ import annotations

from collections.abc import Sequence

from execrl.envs.environment import Environment
from execrl.errors import UsageError
from execrl.rewards.compositions import RewardFn
from execrl.rewards.scoring import Scored
from execrl.sandbox.languages import language as find_language
from execrl.sandbox.records import program_sha256


def score_row(scored: Scored, reward_fn: RewardFn, references: str) -> dict:
    """The row of one scored program (``references``: how the reference durations were
    obtained: ``measure``, ``stored`` or the saved campaign's path)."""
    return {
        **scored.to_dict(),
        "reward_name": reward_fn.name,
        "references": references,
        "record": scored.record.model_dump(mode="json"),
    }


def row_key(row: dict) -> tuple:
    """What makes a scored row unique: problem, program text, the name it came under and its
    language (``python`` in rows written before rows had one)."""
    return (
        row.get("problem_id"),
        row.get("program_sha256"),
        row.get("program_name"),
        row.get("language") or "python",
    )


def program_key(problem_id: str, code: str, name: str, language: str = "python") -> tuple:
    """The :func:`row_key` the row of this program will have (``language`` canonical, as the
    record stores it)."""
    return (problem_id, program_sha256(code), name, canonical_name(language))


def canonical_name(language: str) -> str:
    """execrl's name of ``language`` (``c++`` -> ``cpp``); a UsageError for an unknown one."""
    return find_language(language).name


def check_resumable(
    rows: Sequence[dict], where: str, env: Environment, reward_fn: RewardFn, references: str
) -> None:
    """Rows kept from an earlier run (of the file ``where``) must have been scored the way
    the rest will be: the same timing, environment, reward and references; a UsageError
    otherwise."""
    if not rows:
        return
    first = rows[0]
    before = (first.get("environment"), first.get("reward_name"), first.get("references"))
    now = (env.name, reward_fn.name, references)
    timing = env.timing_for()
    if first.get("timing", "cpu") != timing:
        raise UsageError(
            f"{where}: its {len(rows)} rows were timed by {first.get('timing', 'cpu')}, not "
            f"{timing}; resume with the same `timing`, or choose another `out`"
        )
    if before != now:
        raise UsageError(
            f"{where}: its {len(rows)} rows were scored under environment "
            f"{before[0]}, reward {before[1]}, references {before[2]}, not {now[0]}, {now[1]}, "
            f"{now[2]}; resume with the same `env`/`reward`/`references`, or choose another `out`"
        )
