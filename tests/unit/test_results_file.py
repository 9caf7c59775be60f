"""ResultsFile: rows survive an interruption, a torn last row is dropped, resume skips what
finished, and bad destinations or contents are one-line errors."""

from __future__ import annotations

import gzip

import pytest

from execrl.errors import DataError, OutputError
from execrl.results import ResultsFile, read_rows


@pytest.mark.parametrize("name", ["r.jsonl", "r.jsonl.gz"])
def test_every_row_is_on_disk_as_soon_as_it_is_written(tmp_path, name):
    path = tmp_path / name
    out = ResultsFile(path, key=lambda r: r["i"])
    for i in range(3):
        out.write({"i": i})
        assert [r["i"] for r in read_rows(path)] == list(range(i + 1))  # before close
    out.close()


@pytest.mark.parametrize("name", ["r.jsonl", "r.jsonl.gz"])
def test_a_torn_last_row_is_dropped_and_resume_continues(tmp_path, name):
    path = tmp_path / name
    with ResultsFile(path, key=lambda r: r["i"]) as out:
        for i in range(3):
            out.write({"i": i, "pad": "x" * 50})
    path.write_bytes(path.read_bytes()[:-7])  # a crash in the middle of the last row
    assert [r["i"] for r in read_rows(path)] == [0, 1]
    with ResultsFile(path, key=lambda r: r["i"], resume=True) as out:
        assert out.resumed == 2 and out.has(1) and not out.has(2)
        out.write({"i": 2})
    assert [r["i"] for r in read_rows(path)] == [0, 1, 2]
    if name.endswith(".gz"):  # any gzip reader reads the members as one stream
        assert gzip.decompress(path.read_bytes()).count(b"\n") == 3


def test_without_resume_an_old_file_is_replaced(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"i": 7}\n')
    with ResultsFile(path, key=lambda r: r["i"]) as out:
        assert not out.has(7)
        out.write({"i": 1})
    assert read_rows(path) == [{"i": 1}]


def test_unwritable_destinations_and_bad_rows_are_one_line_errors(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="cannot write results"):
        ResultsFile(blocker / "r.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"i": 1}\n[1, 2]\n{"i": 3}\n')
    with pytest.raises(DataError, match="line 2: expected a JSON object"):
        read_rows(bad)
    bad.write_bytes(b'{"i": 1}\n\xff\xfe\n{"i": 3}\n')
    with pytest.raises(DataError, match="line 2: not UTF-8"):
        read_rows(bad)
    (tmp_path / "x.jsonl.gz").write_bytes(b"not gzip at all")
    with pytest.raises(DataError, match="not a gzip file"):
        read_rows(tmp_path / "x.jsonl.gz")
