"""The guarded reader every text and data input goes through (``svtgui.data.textio``).

A FIFO, a device, a folder, a link loop or an empty file is named and never opened or read (a
FIFO would block forever, /dev/zero never end); a file over the size cap is refused before it is
read; undecodable bytes are located by line and column; UTF-16 without a byte-order mark is read
as UTF-16, not called binary. The ragged-row check follows quotes, so a short row after a quoted
field is still found, and its cost is linear in the length of a line.
"""

from __future__ import annotations

import csv
import io
import os
import re
import threading
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from svtgui.app.project_file import SessionError
from svtgui.app.project_file import load as load_session
from svtgui.cli import main as cli_main
from svtgui.data import DatasetError, load_dataset, textio
from svtgui.data.errors import InputFileError
from svtgui.data.predicates import QueryError
from svtgui.data.queries import read_queries
from svtgui.data.schema import Schema, SchemaError


def _special_files(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "gone")
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    return {
        "named pipe (FIFO)": fifo,
        "device": "/dev/zero",
        "folder": tmp_path,
        "symbolic link loop": loop,
        "symbolic link to a missing file": dangling,
        "empty (0 bytes)": empty,
        "no such file": tmp_path / "absent.json",
    }


READERS = {
    "queries": (read_queries, QueryError),
    "schema": (Schema.read, SchemaError),
    "session": (load_session, SessionError),
    "dataset": (load_dataset, DatasetError),
}


def _without_hanging(call, *args):
    """Run ``call`` on a daemon thread: a reader that blocks on a FIFO fails the test, not the run."""
    outcome: list[BaseException | object] = []
    thread = threading.Thread(target=lambda: outcome.append(_outcome(call, *args)), daemon=True)
    thread.start()
    thread.join(30)
    assert outcome, f"{call.__name__} blocked on {args}"
    return outcome[0]


def _outcome(call, *args):
    try:
        return call(*args)
    except BaseException as exc:  # noqa: BLE001 - returned to the test, which checks its type
        return exc


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_names_a_special_file_and_never_reads_it(tmp_path, reader):
    call, error = READERS[reader]
    for words, path in _special_files(tmp_path).items():
        if reader == "dataset" and words.startswith("empty"):
            path = path.with_suffix(".csv")
            path.write_bytes(b"")
        exc = _without_hanging(call, path)
        assert isinstance(exc, error), (words, exc)
        assert words in str(exc) and str(path) in str(exc), str(exc)


def test_the_config_reader_names_special_files_too(tmp_path, capsys):
    for words, path in _special_files(tmp_path).items():
        if words.startswith("empty"):
            continue  # an empty config is valid TOML (no keys)
        assert _without_hanging(cli_main, ["run", "--config", str(path)]) == 2
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1, err


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate(textio.TEXT_LIMIT + 1)  # sparse: costs no disk
    with pytest.raises(QueryError, match=r"more than the 67,108,864 bytes \(64.0 MiB\) a query file may be"):
        read_queries(big)


@pytest.mark.parametrize("data, line, column", [
    (b'{"a": 1,\n "b": "caf\xe9"}', 2, 11),  # Latin-1 é in a UTF-8 file
    (b"[1,\n2,\n  \xff]", 3, 3),
])
def test_undecodable_bytes_are_located(tmp_path, data, line, column):
    path = tmp_path / "q.json"
    path.write_bytes(data)
    with pytest.raises(InputFileError) as info:
        textio.read_text(path, what="query file")
    assert (info.value.line, info.value.column) == (line, column)
    assert "UTF-8" in info.value.message


def test_a_nul_byte_is_called_binary_with_its_place(tmp_path):
    path = tmp_path / "q.json"
    path.write_bytes(b'{"a":\n 1\x00}')
    with pytest.raises(InputFileError, match="binary") as info:
        textio.read_text(path, what="query file")
    assert (info.value.line, info.value.column) == (2, 3)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-16", "utf-8-sig"])
def test_utf16_without_a_bom_is_read_not_called_binary(tmp_path, encoding):
    text = '{"format": "svtgui-queries", "version": 1, "queries": [{"kind": "count"}]}'
    path = tmp_path / "q.json"
    path.write_bytes(text.encode(encoding))
    assert len(read_queries(path).queries) == 1
    data = tmp_path / "d.csv"
    data.write_bytes("age,sex\n34,F\n51,M\n".encode(encoding))
    assert load_dataset(data).frame.shape == (2, 2)


@pytest.mark.parametrize("text, line", [
    ('a,b,c\n1,"x,y",3\n4,5\n', 3),  # a short row after a quoted delimiter
    ('a,b\n1,"two\nlines"\n2,3\n4\n', 5),  # ... after a quoted newline (physical line 5)
    ('a,b\n"x ""q"", y",1\n2\n', 3),  # ... after doubled quotes
    ('a,b\n1,2\n3,"4",5\n', 3),  # a long row holding a quote
])
def test_ragged_rows_are_found_in_files_with_quotes(tmp_path, text, line):
    path = tmp_path / "d.csv"
    path.write_text(text)
    with pytest.raises(DatasetError, match="ragged row") as info:
        load_dataset(path)
    assert info.value.line == line


@pytest.mark.parametrize("text, line", [
    ('a,b\n"x"y,1\n', 2),
    ('a,b\n1,"two\nlines" more\n', 3),
    ('a,b\n"x"  "y",1\n', 2),
])
def test_text_after_a_closing_quote_is_refused_with_its_line(tmp_path, text, line):
    """pandas appended it to the field, DuckDB refused the file, Spark read a third value (issue 22 §2)."""
    path = tmp_path / "d.csv"
    path.write_text(text)
    with pytest.raises(DatasetError, match="text after its closing quote") as info:
        load_dataset(path)
    assert info.value.line == line


def test_blanks_after_a_closing_quote_are_stripped(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text('a,b\n"x" ,1\n"y",2\n')
    assert list(load_dataset(path).frame["a"]) == ["x", "y"]


def test_quoted_fields_with_delimiters_and_newlines_load(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text('a,b\n"x, y",1\n"two\nlines",2\n, 3\n')
    assert load_dataset(path).frame.shape == (3, 2)


def test_the_ragged_row_check_spans_chunks_without_carrying_bytes(tmp_path):
    """A record split across reads is counted from its carried totals (linear time)."""
    counter = textio.FieldCounter(tmp_path / "d.csv", ",")
    counter.feed(b"a,b,c\n1,")
    for _ in range(1000):
        counter.feed(b"x" * 100)  # one long line arriving in pieces
    assert counter.pending_len == 2 + 100_000 and len(counter.pending_head) <= 3  # counts, not bytes
    counter.feed(b',"q\n')
    counter.feed(b'r"\n4,5')  # the quoted newline does not end the record; "4,5" on line 4 is short
    with pytest.raises(DatasetError, match="ragged row: 2 fields") as info:
        counter.feed(b"", final=True)
    assert info.value.line == 4


def test_a_symlink_loop_in_the_recent_files_never_raises(tmp_path, monkeypatch):
    pytest.importorskip("PySide6")
    from svtgui.ui.common.settings import Settings

    monkeypatch.setenv("SVTGUI_CONFIG_DIR", str(tmp_path / "config"))
    loop = tmp_path / "loop.csv"
    loop.symlink_to(loop)
    settings = Settings()
    settings.add_recent_file(loop)
    settings.remove_recent_file(loop)
    assert settings.recent_files == []


def _csv_field_counts(text: str) -> list[int]:
    """Fields per record as Python's csv module reads them (the same states as pandas' C parser)."""
    rows = csv.reader(io.StringIO(text, newline=None), skipinitialspace=True)  # "\r" ends a line too
    return [len(row) for row in rows if row]


@settings(max_examples=400, derandomize=True, database=None, deadline=None)
@given(st.text(alphabet='ab,"\n\r ', min_size=1, max_size=60), st.lists(st.integers(1, 7), max_size=8))
def test_the_field_counter_agrees_with_a_csv_parser(text, cuts):
    """Ragged or not, as a real CSV parser counts fields — with stray quotes, quoted newlines, "\r",
    "\r\n" and "\n" line ends, and records split across reads at arbitrary points."""
    lines = re.split("\r\n|\r|\n", text)
    assume(lines[0].strip() and not any(ln and not ln.strip() for ln in lines))  # no blank-but-spaces
    counts = _csv_field_counts(text)
    data, pieces, at = text.encode(), [], 0
    for cut in cuts:
        pieces.append(data[at:at + cut])
        at += cut
    pieces.append(data[at:])
    counter = textio.FieldCounter(Path("t.csv"), ",")
    try:
        for piece in pieces:
            counter.feed(piece)
        counter.feed(b"", final=True)
    except DatasetError as exc:
        if "after its closing quote" in str(exc):  # a strict parser refuses it too
            with pytest.raises(csv.Error, match="expected after"):
                list(csv.reader(io.StringIO(text, newline=None), skipinitialspace=True, strict=True))
            return
        bad = next(c for c in counts if c != counts[0])
        assert f"ragged row: {bad} fields where the header has {counts[0]}" in str(exc)
    else:
        assert len(set(counts)) <= 1, counts
