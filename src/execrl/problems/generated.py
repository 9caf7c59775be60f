"""Generated test inputs: run a problem's generator, and regenerate large inputs on demand.

Large generated inputs are not stored in problem folders: the folder keeps
``<mode>-<seed>.in.sha256`` (the input's hash) and the expected output; the input is rebuilt
by running the (trusted, deterministic) generator with that mode and seed, checked against
the hash, and kept in a content-addressed cache (``$EXECRL_CACHE_DIR`` or ``~/.cache/execrl``).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from execrl.errors import ProblemFormatError
from execrl.problems.models import GeneratorMode

GENERATOR_TIMEOUT_S = 60.0


def cache_dir() -> Path:
    root = os.environ.get("EXECRL_CACHE_DIR") or Path.home() / ".cache" / "execrl"
    return Path(root)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def generate_input(generator_code: str, mode: GeneratorMode | str, seed: int) -> str:
    """Run the generator program for one (mode, seed) and return the input it prints."""
    mode = GeneratorMode(mode)
    with tempfile.TemporaryDirectory(prefix="execrl-gen-") as tmp:
        path = Path(tmp) / "generator.py"
        path.write_text(generator_code, encoding="utf-8")
        try:
            done = subprocess.run(
                [sys.executable, "-I", str(path), mode.value, str(seed)],
                capture_output=True,
                timeout=GENERATOR_TIMEOUT_S,
                cwd=tmp,
            )
        except subprocess.TimeoutExpired as exc:
            raise ProblemFormatError(
                f"generator {mode.value} {seed}: ran past {GENERATOR_TIMEOUT_S:.0f} s"
            ) from exc
    if done.returncode != 0:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
        raise ProblemFormatError(
            f"generator {mode.value} {seed}: exited {done.returncode}: {tail[0]}"
        )
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProblemFormatError(
            f"generator {mode.value} {seed}: printed bytes that are not UTF-8 (at offset "
            f"{exc.start}); make it print text"
        ) from None


def remember_input(text: str) -> str:
    """Put an input in the cache; returns its hash."""
    digest = sha256_text(text)
    path = cache_dir() / "inputs" / f"{digest}.in"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_text(text, encoding="utf-8", newline="")
        partial.replace(path)  # atomic: readers never see half a file
    return digest


def regenerate_input(generator_code: str | None, test_name: str, digest: str, *, where: str) -> str:
    """The input of generated test ``<mode>-<seed>`` whose hash is ``digest``."""
    cached = cache_dir() / "inputs" / f"{digest}.in"
    if cached.is_file():
        with open(cached, "rb") as f:
            raw = f.read()
        if hashlib.sha256(raw).hexdigest() == digest:  # (so it is the UTF-8 text stored)
            return raw.decode("utf-8")
        cached.unlink(missing_ok=True)  # a damaged cache entry: rebuild it below
    mode, _, seed = test_name.rpartition("-")
    if generator_code is None or mode not in {m.value for m in GeneratorMode} or not seed.isdigit():
        raise ProblemFormatError(
            f"{where}: only a hash is stored, and it is not a generated "
            "test of this problem's generator; store the input itself"
        )
    text = generate_input(generator_code, mode, int(seed))
    if sha256_text(text) != digest:
        raise ProblemFormatError(
            f"{where}: the generator no longer reproduces this input (hash mismatch); "
            "run `execrl problems build` on the problem to rebuild its tests"
        )
    remember_input(text)
    return text
