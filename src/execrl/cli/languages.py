"""``execrl languages``: each language of :data:`execrl.sandbox.languages.LANGUAGES`, whether
its toolchain is installed here (it built and ran a test program), its version, and for a
missing one the Debian package that provides it; ``--json`` for machines. Exit 0 either way."""

from __future__ import annotations

import argparse
import dataclasses
import json

from execrl.cli._common import EXIT_OK, console, print_table
from execrl.sandbox.languages import LANGUAGES, PROFILES, probe_all


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "languages",
        help="list the languages, whether each toolchain is installed, and its version",
        description="Build and run a tiny program in each language (on the host, not in the "
        "sandbox) and list which toolchains work here, their versions, and the Debian "
        "package that provides each missing one.",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    found = probe_all()
    if args.json:
        rows = []
        for toolchain in found:
            lang = LANGUAGES[toolchain.language]
            commands = {
                name: dataclasses.asdict(lang.commands(name)) for name in PROFILES
            }  # each profile's filled build and run argv
            rows.append(
                {
                    **dataclasses.asdict(toolchain),
                    "title": lang.title,
                    "debian_package": lang.debian_package,
                    "source_file": lang.source_file,
                    "commands": commands,
                }
            )
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    rows = [
        [
            t.language,
            LANGUAGES[t.language].title,
            "yes" if t.installed else "no",
            t.version or "—",
            "" if t.installed else f"apt-get install {LANGUAGES[t.language].debian_package}",
        ]
        for t in found
    ]
    print_table(["name", "language", "installed", "version", "to install"], rows, align="l")
    for t in found:
        if not t.installed:
            console.print(f"{t.language}: {t.why_not}", highlight=False, markup=False)
    return EXIT_OK
