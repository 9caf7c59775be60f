"""The bad-input suite: every user mistake ends in exit code 2 and one line on stderr, never
a traceback, and nothing already written is lost.

``bad_input(argv)`` runs the ``execrl`` command in-process (as the console script does) and
asserts exactly that; it returns the one stderr line for the test to check what it names.
"""

from __future__ import annotations

import pytest

from execrl.cli.main import main


@pytest.fixture
def bad_input(capsys):
    def run(argv: list[str], *, code: int = 2) -> str:
        capsys.readouterr()
        try:
            got = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse's own usage errors exit 2 with a usage line
            got = exc.code
        except BaseException as exc:  # (the point: nothing may escape)
            pytest.fail(f"{argv}: escaped as {type(exc).__name__}: {exc}")
        _, err = capsys.readouterr()
        assert got == code, (argv, got, err)
        lines = [line for line in err.splitlines() if line.strip()]
        assert "Traceback" not in err, err
        if code == 2:
            assert len(lines) >= 1, (argv, "no message on stderr")
            message = [line for line in lines if not line.startswith("usage:")]
            assert len(message) == 1, (argv, err)  # (argparse adds its usage line above)
            return message[0]
        return err

    return run
