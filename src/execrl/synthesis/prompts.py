"""The pipeline's prompts as data: scenarios, augmentation templates, solver roles and the
stage prompts, bundled under ``execrl/synthesis/data/`` and replaceable file by file.

Every template has an id that each row records in its provenance, so a row says which words
made it. The loaders check the files' shape and say which file and entry is wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from execrl.errors import UsageError
from execrl.synthesis.config import SynthesisConfig

STAGE_PROMPTS = ("generate", "judge", "repair", "regenerate")


@dataclass(frozen=True)
class Template:
    """A prompt with an id; ``text`` has ``{placeholders}``."""

    id: str
    text: str

    def fill(self, **values: str) -> str:
        try:
            return self.text.format(**values)
        except (KeyError, IndexError) as exc:
            raise UsageError(
                f"prompt {self.id!r} has a placeholder {exc} the stage does not fill; "
                f"it fills {sorted(values)} (write a literal brace as {{{{ or }}}})"
            ) from None


@dataclass(frozen=True)
class Prompts:
    """Everything a run says to the models."""

    scenarios: tuple[Template, ...]
    """Industry settings (``text`` is the description)."""
    augment: dict[str, Template]
    roles: tuple[Template, ...]
    stage: dict[str, Template]


def bundled_data() -> Path:
    return Path(str(resources.files("execrl.synthesis") / "data"))


def load_prompts(config: SynthesisConfig) -> Prompts:
    """The prompts a run uses: the bundled files unless the config names replacements."""
    data = bundled_data()
    scenarios = read_scenarios(Path(config.scenarios_file or data / "scenarios.txt"))
    augment = read_templates(Path(config.augment_file or data / "augment.yaml"))
    roles = read_templates(Path(config.roles_file or data / "roles.yaml"))
    stage = read_stage_prompts(Path(config.prompts_file or data / "prompts.yaml"))
    by_id = {t.id: t for t in augment}
    unknown = [name for name in config.augment if name not in by_id]
    if unknown:
        raise UsageError(
            f"augmentation template {unknown[0]!r} is not in the augment file; it has "
            f"{sorted(by_id)}"
        )
    if config.n_roles > len(roles):
        raise UsageError(f"`n_roles` is {config.n_roles} but the roles file has {len(roles)} roles")
    return Prompts(scenarios, by_id, tuple(roles[: config.n_roles]), stage)


def read_scenarios(path: Path) -> tuple[Template, ...]:
    """``slug: description`` lines (``#`` lines and blank lines skipped); a line without a
    slug gets ``scenario-<n>``."""
    text = _read(path)
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        slug, sep, rest = line.partition(":")
        if sep and re.fullmatch(r"[\w.-]+", slug.strip()):
            out.append(Template(slug.strip(), rest.strip()))
        else:
            out.append(Template(f"scenario-{len(out)}", line))
    if not out:
        raise UsageError(f"{path}: no scenarios (one `slug: description` a line)")
    return tuple(out)


def read_templates(path: Path) -> list[Template]:
    """A YAML list of ``{id, text}``."""
    rows = yaml.safe_load(_read(path))
    if not isinstance(rows, list) or not rows:
        raise UsageError(f"{path}: expected a YAML list of {{id, text}} entries")
    return [_template(row, f"{path}[{i}]") for i, row in enumerate(rows)]


def read_stage_prompts(path: Path) -> dict[str, Template]:
    """A YAML mapping ``stage: {id, text}`` for every stage prompt."""
    rows = yaml.safe_load(_read(path))
    missing = [s for s in STAGE_PROMPTS if not isinstance(rows, dict) or s not in rows]
    if missing:
        raise UsageError(f"{path}: no prompt for {missing[0]!r} (it needs {list(STAGE_PROMPTS)})")
    return {name: _template(rows[name], f"{path}:{name}") for name in STAGE_PROMPTS}


def _template(row: Any, where: str) -> Template:
    if not isinstance(row, dict) or not isinstance(row.get("id"), str):
        raise UsageError(f"{where}: an entry needs a string `id` and `text`")
    if not isinstance(row.get("text"), str) or not row["text"].strip():
        raise UsageError(f"{where}: entry {row['id']!r} has no `text`")
    return Template(row["id"], row["text"])


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror})") from None
