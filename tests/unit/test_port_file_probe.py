"""`execrl serve --port-file FILE` checks that FILE can be written without creating it: a
test or a launcher polling for the file must never find it empty (it once did: the check
touched FILE before the server wrote the port, and a poller read '')."""

from __future__ import annotations

import pytest

from execrl.cli._files import writable_file
from execrl.errors import OutputError


def test_the_probe_is_created_and_removed_and_the_file_never_appears(tmp_path):
    port_file = tmp_path / "sub" / "port"
    probe = port_file.with_name("port.partial")
    writable_file(port_file, "--port-file", probe=probe)
    assert not port_file.exists() and not probe.exists()
    assert port_file.parent.is_dir()


def test_an_unwritable_folder_still_names_the_flag(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="--port-file"):
        writable_file(blocker / "port", "--port-file", probe=blocker / "port.partial")


def test_without_a_probe_the_file_itself_is_checked(tmp_path):
    existing = tmp_path / "kept"
    existing.write_text("1234\n")
    writable_file(existing, "--out")
    assert existing.read_text() == "1234\n"
