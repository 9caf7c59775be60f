"""Library messages name a function's parameters, in backticks (`ks`); the CLI shows the flag
that sets each (``--k``). Every command has a table of them: each of its options under its
dest (``run_ms`` → ``--run-ms``), the plurals of ``PLURALS`` (``ks`` → ``--k``), and the
parameters its library calls name otherwise, which the command adds with :func:`also_flags`.
``main`` builds the tables once (:func:`set_flag_tables`) and rewrites every error line with
its command's (:func:`as_flags`); a parameter the command has no flag for keeps its name."""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping

_PARAMETER = re.compile(r"`([A-Za-z_]\w*)`")
"""A parameter as library messages write it (a command in backticks has spaces: untouched)."""

PLURALS = {"ks": "k", "taus": "tau", "rewards": "reward"}
"""Parameters of many values set by a repeatable or comma-list option of the singular name:
each is shown as that option, in every command that has it."""


def also_flags(parser: argparse.ArgumentParser, **params: str) -> None:
    """The flags that set library parameters of other names than their dests (``ks="--k"``)."""
    parser.set_defaults(extra_flags={**(parser.get_default("extra_flags") or {}), **params})


def set_flag_tables(parser: argparse.ArgumentParser) -> None:
    """Give every command under ``parser`` its table, as the ``param_flags`` default its
    parsed arguments carry to ``main``."""
    for action in parser._actions:  # argparse keeps no public list of a parser's options
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                set_flag_tables(command)
    extra = parser.get_default("extra_flags") or {}
    parser.set_defaults(param_flags={**flag_table(parser), **extra})


def flag_table(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each option of ``parser`` under its dest, by its long name (``jobs`` → ``--jobs``),
    and under the plural of ``PLURALS`` it sets (``ks`` → ``--k``)."""
    table = {
        action.dest: max(action.option_strings, key=len)
        for action in parser._actions
        if action.option_strings and action.dest != argparse.SUPPRESS
    }
    return table | {many: table[one] for many, one in PLURALS.items() if one in table}


def as_flags(message: str, flags: Mapping[str, str]) -> str:
    """``message`` with each `parameter` in ``flags`` written as its flag."""
    return _PARAMETER.sub(lambda m: flags.get(m.group(1), m.group(0)), message)
