"""Reading a file's bytes exactly once: hashing, progress, cancellation, encoding and shape checks.

Every loader reads through a :class:`StreamingReader`. While the parser pulls bytes, the reader
feeds them to SHA-256 (the dataset fingerprint: a content hash, so a renamed or reloaded file keeps
its budget), reports the fraction read, honours the caller's cancellation, and, for delimited text,
checks two things the parser reports badly or not at all:

* **encoding**: bytes are run through a strict incremental decoder, so an undecodable byte is
  reported with its line number instead of an opaque offset;
* **ragged rows**: the number of delimiters per record is counted vectorised (numpy), outside
  quoted fields, and a record whose field count differs from the header's is reported with its
  line number. pandas silently pads short rows with missing values, which would turn a broken file
  into wrong answers (see :class:`FieldCounter`).

Every file is opened through :func:`open_regular` and every text input (queries, schema, config,
session) is read with :func:`read_text`: regular files only (a FIFO, device or folder is named and
never opened), a size cap, strict decoding with line and column.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import io
import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from svtgui.core.keys import RepeatedKey, parse_json
from svtgui.core.progress import ProgressState
from svtgui.data.errors import DatasetError, InputFileError, LoadCancelled

SAMPLE_BYTES = 1 << 16
DELIMITER_CANDIDATES = (",", "\t", ";", "|")
TEXT_LIMIT = 64 << 20  # queries, schema, config and session files: far above any real one
MAX_RECORD_BYTES = 64 << 20  # one CSV record (line): longer is damage, and pandas would hold it whole


# -- the guarded reader: every file SVT Studio reads goes through open_regular ----------------------

_STAT_ERRORS = {
    errno.ENOENT: "no such file",
    errno.ELOOP: "a symbolic link loop (a link that points, directly or not, back to itself)",
    errno.EACCES: "permission denied (the file or a folder on its path cannot be read)",
    errno.EPERM: "permission denied",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.ENAMETOOLONG: "the path is too long",
}


def _os_error(exc: OSError, path: Path) -> InputFileError:
    message = _STAT_ERRORS.get(exc.errno or 0) or f"cannot read the file: {exc.strerror or exc}"
    if exc.errno == errno.ENOENT and os.path.islink(path):
        message = f"a symbolic link to a missing file ({os.readlink(path)})"
    return InputFileError(message, path=path)


def file_kind(mode: int) -> str | None:
    """What a non-regular file is, in words (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    if stat.S_ISFIFO(mode):
        return ("a named pipe (FIFO), not a regular file; SVT Studio reads only regular files "
                "(a pipe can block forever and cannot be read twice)")
    if stat.S_ISCHR(mode):
        return "a device (like /dev/zero or a terminal), not a regular file"
    if stat.S_ISBLK(mode):
        return "a block device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    return "not a regular file"


def check_regular_file(path: str | Path, *, allow_empty: bool = False) -> os.stat_result:
    """``stat`` ``path`` (following links) and refuse what is not a readable regular file.

    A FIFO, device, socket or folder is named as such and never opened (opening a FIFO blocks until
    a writer appears; reading /dev/zero never ends).
    """
    path = Path(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _os_error(exc, path) from None
    except ValueError:  # an embedded NUL in the path
        raise InputFileError("the path contains a NUL character", path=path) from None
    kind = file_kind(st.st_mode)
    if kind is not None:
        raise InputFileError(f"this is {kind}", path=path)
    if st.st_size == 0 and not allow_empty:
        raise InputFileError("the file is empty (0 bytes)", path=path)
    return st


def open_regular(path: str | Path, *, allow_empty: bool = False) -> io.BufferedReader:
    """Open a regular file for reading, refusing anything else (see :func:`check_regular_file`).

    The open is non-blocking and the opened file is checked again, so a file swapped for a FIFO
    between the check and the open cannot hang the reader.
    """
    path = Path(path)
    check_regular_file(path, allow_empty=allow_empty)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _os_error(exc, path) from None
    kind = file_kind(os.fstat(fd).st_mode)
    if kind is not None:
        os.close(fd)
        raise InputFileError(f"this is {kind}", path=path)
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return open(fd, "rb")  # noqa: SIM115 - the caller closes it


def size_text(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"


def read_bytes(path: str | Path, *, what: str, limit: int = TEXT_LIMIT, allow_empty: bool = False) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (``what`` names it in the message)."""
    path = Path(path)
    with open_regular(path, allow_empty=allow_empty) as f:
        size = os.fstat(f.fileno()).st_size
        data = b"" if size > limit else f.read(limit + 1)
    if max(size, len(data)) > limit:
        n = max(size, len(data))
        big, cap = size_text(n), size_text(limit)
        if big == cap:  # "1.0 MiB, more than the 1.0 MiB": rounding hid the difference, say it in bytes
            big, cap = f"{n:,} bytes", f"{limit:,} bytes ({cap})"
        raise InputFileError(f"the file is {big}, more than the {cap} a {what} may be; is it the right file?",
                             path=path)
    return data


def read_text(path: str | Path, *, what: str, limit: int = TEXT_LIMIT, allow_empty: bool = False) -> str:
    """A text input (queries, schema, config, session) read through every guard, decoded strictly.

    UTF-8 (with or without BOM), or UTF-16/32 with a BOM, or UTF-16 without one (recognised by its
    NUL bytes). Undecodable bytes and NUL bytes are reported with their line and column.
    """
    path = Path(path)
    return decode_text(read_bytes(path, what=what, limit=limit, allow_empty=allow_empty), path)


def utf16_without_bom(sample: bytes) -> str | None:
    """``"utf-16-le"``/``"utf-16-be"`` when ``sample`` is UTF-16 text without a byte-order mark.

    Mostly-ASCII UTF-16 has a NUL in every other byte and almost none in the others; binary data
    does not look like that.
    """
    n = len(sample) - len(sample) % 2
    if n < 4:
        return None
    arr = np.frombuffer(sample[:n], dtype=np.uint8).reshape(-1, 2)
    zero = arr == 0
    for col, name in ((1, "utf-16-le"), (0, "utf-16-be")):
        if zero[:, col].mean() > 0.7 and zero[:, 1 - col].mean() < 0.05:
            try:
                codecs.getincrementaldecoder(name)("strict").decode(sample[:n], final=False)
            except UnicodeDecodeError:
                return None
            return name
    return None


def position(data: bytes, offset: int, encoding: str = "utf-8") -> tuple[int, int]:
    """1-based (line, column in characters) of byte ``offset`` in ``data``."""
    start = data.rfind(b"\n", 0, offset) + 1
    if encoding.startswith("utf-16") and start % 2:
        start += 1  # the byte after "\n" in UTF-16-LE is its high byte
    column = len(data[start:offset].decode(encoding, errors="replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column


def decode_text(data: bytes, path: Path) -> str:
    """Strictly decode a text input (see :func:`read_text`)."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        encoding = "utf-32"
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    elif data.startswith(codecs.BOM_UTF8):
        encoding = "utf-8-sig"
    else:
        encoding = utf16_without_bom(data[:SAMPLE_BYTES]) or "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as e:
        line, column = position(data, e.start, encoding)
        raise InputFileError(
            f"not {encoding.upper()} text (byte 0x{data[e.start]:02X} cannot be decoded); "
            "save the file as UTF-8",
            path=path,
            line=line,
            column=column,
        ) from None
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        column = nul - (text.rfind("\n", 0, nul) + 1) + 1
        raise InputFileError(
            "a NUL byte: this looks like a binary file, not text", path=path, line=line, column=column
        )
    return text


def report(progress: ProgressState | None, fraction: float) -> None:
    """Tell the caller ``fraction`` of the file is read; raise :class:`LoadCancelled` if it cancelled.

    ``progress`` is the caller's state (the window's load task, :class:`svtgui.app.tasks.TaskState`):
    it keeps only the latest value, so reporting after every read costs nothing.
    """
    if progress is None:
        return
    if progress.is_cancelled():
        raise LoadCancelled("loading was cancelled")
    progress.set_progress(fraction, "reading")


_FIELD_START, _UNQUOTED, _QUOTED, _QUOTE_IN_QUOTED, _AFTER_QUOTED = range(5)  # the CSV parser's states


class FieldCounter:
    """Counts fields per record across chunk boundaries to find ragged rows, in linear time.

    Quotes are followed the way the parser reads them (RFC 4180: a field that starts with ``"``
    runs to the matching ``"``; ``""`` inside is one quote), so delimiters and newlines inside
    quoted fields are not counted: the quote parity before every byte is one ``cumsum`` per chunk.
    Only an unfinished record's counts are carried to the next chunk, never its bytes, so a line of
    any length costs time proportional to its length. A *stray* quote (one in the middle of an
    unquoted field, which the parser keeps as a literal character: ``5'3"``) makes parity
    meaningless; from that chunk on the counter follows the parser's own states byte by byte on
    the lines that hold a quote (:meth:`_feed_sequential`; quote-free lines are still counted
    with ``bytes.count``). Text after a quoted field's closing quote (``"a "b``, a quote that was
    not doubled) is refused: pandas appends it to the field, DuckDB refuses the file and Spark
    reads yet another value, so no engine could be trusted to read it as the curator meant.
    """

    def __init__(self, path: Path, delimiter: str) -> None:
        self.path = path
        self.byte = ord(delimiter)
        self.expected: int | None = None
        self.physical = 0  # newline bytes seen so far (physical lines completed)
        self.in_quote = 0  # quote parity carried into the next chunk
        self.pending_fields = 0  # delimiters of the unfinished record
        self.pending_len = 0
        self.pending_head = b""  # its first bytes (a record of <= 2 blank bytes is a blank line)
        self.pending_line = 1  # physical line where the unfinished record starts
        self.last = -1  # the previous chunk's last byte (-1: start of file)
        self.last_solid = -1  # ... and its last non-space byte
        self.state: int | None = None  # the parser's state once counting byte by byte (None: not yet)

    def feed(self, data: bytes, final: bool = False) -> None:
        if self.state is None and self.last == 34 and not self.in_quote and data[:1] not in (
                b"", b'"', b"\n", b"\r", b" ", bytes([self.byte])):
            self.state = _QUOTE_IN_QUOTED  # a closing quote ended the last read; text follows it
        if self.state is not None:
            return self._feed_sequential(data, final)
        arr = np.frombuffer(data, dtype=np.uint8)
        newlines = self._line_ends(arr)
        quotes = arr == 34
        if self.in_quote or quotes.any():
            before = (np.cumsum(quotes, dtype=np.int64) - quotes + self.in_quote) & 1
            if self._stray_quote(arr, np.flatnonzero(quotes), before):
                self.state = self._state_now()
                return self._feed_sequential(data, final)
            outside = before == 0
            self.in_quote = int((self.in_quote + int(quotes.sum())) & 1)
            ends = np.flatnonzero(newlines & outside)
            delims = np.flatnonzero((arr == self.byte) & outside)
        else:
            ends = np.flatnonzero(newlines)
            delims = np.flatnonzero(arr == self.byte)
        all_newlines = np.flatnonzero(newlines) if len(ends) else ends
        if len(ends):
            starts = np.concatenate(([0], ends[:-1] + 1))
            counts = np.searchsorted(delims, ends) - np.searchsorted(delims, starts)
            lengths = ends - starts
            counts[0] += self.pending_fields
            lengths[0] += self.pending_len
            # physical line of each record's start
            lines = self.physical + 1 + np.searchsorted(all_newlines, starts)
            lines[0] = self.pending_line
            heads = [self.pending_head + data[: min(int(ends[0]), 3)]] + [b""] * (len(ends) - 1)
            self._check(counts, lengths, lines, data, starts, ends, heads)
            tail = int(ends[-1]) + 1
            self.pending_fields = int(len(delims) - np.searchsorted(delims, tail))
            self.pending_len = len(data) - tail
            self.pending_head = data[tail : tail + 3]
            self.pending_line = self.physical + 1 + len(all_newlines[all_newlines < tail])
        else:
            self.pending_fields += len(delims)
            self.pending_len += len(data)
            if len(self.pending_head) < 3:
                self.pending_head = (self.pending_head + data[:3])[:3]
        self._check_length()
        self.physical += int(newlines.sum())
        if len(data):
            self.last = int(arr[-1])
            solid = np.flatnonzero(arr != 32)
            if len(solid):
                self.last_solid = int(arr[solid[-1]])
        if final and self.pending_len:
            self._end_record()

    def _check_length(self) -> None:
        if self.pending_len > MAX_RECORD_BYTES:
            raise DatasetError(
                f"a line longer than {size_text(MAX_RECORD_BYTES)} (no line break where one is due): the "
                "file is damaged or is not delimited text", path=self.path, line=self.pending_line,
            )

    def _end_record(self) -> None:
        """Check the record counted so far and start the next one."""
        self._check(
            np.array([self.pending_fields]), np.array([self.pending_len]), np.array([self.pending_line]),
            b"", np.array([0]), np.array([0]), [self.pending_head],
        )
        self.pending_len = self.pending_fields = 0
        self.pending_head = b""
        self.pending_line = self.physical + 1

    # -- byte by byte, as the parser reads (after a stray quote) ----------------------------------

    def _state_now(self) -> int:
        """The parser's state at the start of the current chunk, from what parity mode carried."""
        if self.in_quote:
            return _QUOTED
        if self.last == 34:
            return _QUOTE_IN_QUOTED
        if self.last in (-1, 10, self.byte) or (self.last == 32 and self.last_solid in (-1, 10, self.byte)):
            return _FIELD_START
        return _UNQUOTED

    def _line_ends(self, arr: np.ndarray) -> np.ndarray:
        """Where lines end, as the parser sees it: at "\n", and at a "\r" not followed by "\n"
        (classic Mac files); the "\n" of a "\r\n" split across two reads ends nothing."""
        ends = arr == 10
        cr = np.flatnonzero(arr == 13)
        if len(cr):
            after = cr + 1
            ends[cr[(after >= len(arr)) | (arr[np.minimum(after, len(arr) - 1)] != 10)]] = True
        if self.last == 13 and len(arr) and arr[0] == 10:
            ends[0] = False
        return ends

    def _feed_sequential(self, data: bytes, final: bool) -> None:
        if self.last == 13 and data.startswith(b"\n"):
            data = data[1:]  # the rest of a "\r\n" split across reads
        if data:
            self.last = data[-1]
        segments = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        for k, segment in enumerate(segments):
            self._scan(segment)
            if k == len(segments) - 1:
                break
            self.physical += 1
            if self.state == _QUOTED:  # a newline inside a quoted field
                self.pending_len += 1
                continue
            self._end_record()
            self.state = _FIELD_START
        self._check_length()
        if final and self.pending_len:
            self._end_record()

    def _scan(self, segment: bytes) -> None:
        """Advance the parser's state machine over one line's bytes (no newline among them)."""
        self.pending_len += len(segment)
        if len(self.pending_head) < 3:
            self.pending_head = (self.pending_head + segment[:3])[:3]
        state, delimiter = self.state, self.byte
        if state in (_FIELD_START, _UNQUOTED) and b'"' not in segment:
            self.pending_fields += segment.count(delimiter)
            solid = segment.rstrip(b" ")
            if solid:
                self.state = _FIELD_START if solid[-1] == delimiter else _UNQUOTED
            return
        fields = 0
        for b in segment:
            if state == _FIELD_START:
                if b == 34:
                    state = _QUOTED
                elif b == delimiter:
                    fields += 1
                elif b != 32:  # spaces after a delimiter are skipped (skipinitialspace)
                    state = _UNQUOTED
            elif state == _UNQUOTED:  # a quote here is a literal character
                if b == delimiter:
                    fields += 1
                    state = _FIELD_START
            elif state == _QUOTED:
                if b == 34:
                    state = _QUOTE_IN_QUOTED
            elif state == _QUOTE_IN_QUOTED and b == 34:  # "" inside a quoted field: one literal quote
                state = _QUOTED
            elif b == delimiter:
                fields += 1
                state = _FIELD_START
            elif b == 32:  # blanks after the closing quote: stripped (cells.py)
                state = _AFTER_QUOTED
            else:
                raise DatasetError(
                    "a quoted field has text after its closing quote (a quote inside a quoted field is "
                    'written twice: "")', path=self.path, line=self.physical + 1,
                )
        self.pending_fields += fields
        self.state = state

    def _check(self, counts, lengths, lines, data, starts, ends, heads) -> None:  # noqa: ANN001
        # an empty record (or a lone "\r") is a blank line, skipped by every engine; one holding only
        # spaces or tabs is refused: pandas skipped it, DuckDB and Spark read a row of missing values
        blank = lengths == 0
        firsts = np.array([h[0] if h else -1 for h in heads[:1]] * len(heads), dtype=np.int64)
        if len(data):  # each record's first byte (the first record's may be in an earlier read: its head)
            later = np.frombuffer(data, dtype=np.uint8)[np.minimum(starts, len(data) - 1)]
            firsts = np.where(np.arange(len(heads)) == 0, firsts, later)
        for i in np.flatnonzero(~blank & (counts == 0) & np.isin(firsts, (32, 9, 13))):  # rare: looked at
            content = data[starts[i] : ends[i]] if len(data) else heads[i]
            if len(content) < lengths[i] or content.strip(b" \t\r"):  # text, or not all of it in view
                continue
            if content.strip(b"\r"):
                raise DatasetError("a line of only spaces or tabs (a row of missing values to some "
                                   "readers, nothing to others); empty it or delete it",
                                   path=self.path, line=int(lines[i]))
            blank[i] = True
        check = np.flatnonzero(~blank)
        if not len(check):
            return
        if self.expected is None:
            self.expected = int(counts[check[0]])
        bad = check[counts[check] != self.expected]
        if len(bad):
            i = int(bad[0])
            raise DatasetError(
                f"ragged row: {counts[i] + 1} fields where the header has {self.expected + 1}",
                path=self.path,
                line=int(lines[i]),
            )

    def _stray_quote(self, arr: np.ndarray, qpos: np.ndarray, before: np.ndarray) -> bool:
        """True if a quote opens a field anywhere but at its start, or a closing quote is followed
        by field text (both are literal characters to the parser, so parity would mislead)."""
        if not len(qpos):
            return False
        at = before[qpos]
        field_start = {self.byte, 10, 13}
        for q in qpos[at == 0]:  # opening quotes: after a delimiter, newline, "" or (spaces after) one
            prev = int(arr[q - 1]) if q else self.last
            if prev == -1 or prev in field_start or prev == 34:
                continue
            if prev != 32:
                return True
            j = q - 1
            while j >= 0 and arr[j] == 32:
                j -= 1
            solid = int(arr[j]) if j >= 0 else self.last_solid
            if solid != -1 and solid not in field_start:
                return True
        closing = qpos[(at == 1) & (qpos + 1 < len(arr))]
        after = arr[closing + 1]
        if np.any(~np.isin(after, (34, self.byte, 10, 13, 32))):
            return True
        for q in closing[after == 32]:  # blanks after a closing quote, then text?
            j = q + 1
            while j < len(arr) and arr[j] == 32:
                j += 1
            if j < len(arr) and arr[j] not in (self.byte, 10, 13):
                return True
        return False


class StreamingReader(io.RawIOBase):
    """A raw binary stream over a file that hashes, reports progress and validates as it is read."""

    def __init__(
        self,
        path: Path,
        progress: ProgressState | None,
        *,
        encoding: str | None = None,
        delimiter: str | None = None,
        span: tuple[float, float] = (0.0, 1.0),
    ) -> None:
        super().__init__()
        self.path = path
        self._f = open_regular(path)
        self.size = max(path.stat().st_size, 1)
        self.hasher = hashlib.sha256()
        self.bytes_read = 0
        self.progress = progress
        self.span = span
        self.encoding = encoding
        self.decoder = codecs.getincrementaldecoder(encoding)("strict") if encoding else None
        self.lines_done = 0  # for locating decoding errors
        self.failure: BaseException | None = None  # what a read raised (Ctrl-C, cancel, bad row)
        ascii_compatible = encoding is None or codecs.lookup(encoding).name not in _WIDE_ENCODINGS
        self.fields = (
            FieldCounter(path, delimiter)
            if delimiter and ascii_compatible and len(delimiter) == 1 and ord(delimiter) < 128
            else None
        )

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[override]
        try:
            return self._readinto(b)
        except BaseException as exc:
            # kept for the caller: a parser may replace it by its own "cannot read" error
            self.failure = exc
            raise

    def _readinto(self, b) -> int:  # noqa: ANN001 - a writable buffer
        data = self._f.read(len(b))
        final = not data
        if data:
            self.hasher.update(data)
            self.bytes_read += len(data)
            b[: len(data)] = data
        self._check(data, final)
        if self.progress is not None:
            lo, hi = self.span
            report(self.progress, lo + (hi - lo) * self.bytes_read / self.size)
        return len(data)

    def _check(self, data: bytes, final: bool) -> None:
        if self.decoder is not None:
            try:
                self.decoder.decode(data, final=final)
            except UnicodeDecodeError as e:
                line = self.lines_done + data[: max(e.start, 0)].count(b"\n") + 1
                raise DatasetError(
                    f"cannot be decoded as {self.encoding} ({e.reason}); "
                    "choose the file's encoding in the load options",
                    path=self.path,
                    line=line,
                ) from None
            self.lines_done += data.count(b"\n")
        if self.fields is not None:
            self.fields.feed(data, final)

    def drain(self) -> None:
        """Read what the parser left unread, so the hash covers the whole file."""
        while True:
            chunk = self._f.read(1 << 20)
            if not chunk:
                break
            self.hasher.update(chunk)

    @property
    def fingerprint(self) -> str:
        return self.hasher.hexdigest()

    def close(self) -> None:
        self._f.close()
        super().close()


_WIDE_ENCODINGS = {"utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"}


def open_stream(
    path: Path,
    progress: ProgressState | None,
    *,
    encoding: str | None = None,
    delimiter: str | None = None,
    span: tuple[float, float] = (0.0, 1.0),
) -> StreamingReader:
    return StreamingReader(path, progress, encoding=encoding, delimiter=delimiter, span=span)


def text_lines(text: io.TextIOBase, path: Path) -> Iterator[tuple[int, str]]:
    """(line number, line) of a line-oriented text file (JSON lines, FIMI), refusing a line longer
    than :data:`MAX_RECORD_BYTES` characters as soon as that much is read: a run without line breaks
    is damage, and iterating over it would hold all of it (gigabytes) in memory."""
    lineno = 0
    while line := text.readline(MAX_RECORD_BYTES + 1):
        lineno += 1
        if len(line) > MAX_RECORD_BYTES:
            raise DatasetError(
                f"a line of more than {MAX_RECORD_BYTES:,} characters (no line break where one is due): "
                "the file is damaged or is not line-oriented text", path=path, line=lineno,
            )
        yield lineno, line


def hash_file(path: Path, progress: ProgressState | None = None,
              span: tuple[float, float] = (0.0, 1.0)) -> str:
    """SHA-256 of a file, streamed (for formats whose parser opens the file itself)."""
    with open_stream(path, progress, span=span) as r:
        while r.read(1 << 20):
            pass
        return r.fingerprint


def read_sample(path: Path) -> bytes:
    with open_regular(path) as f:
        return f.read(SAMPLE_BYTES)


def detect_encoding(sample: bytes, path: Path) -> str:
    """BOM, else strict UTF-8, else Windows-1252, else Latin-1; binary files are refused."""
    if sample.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if sample.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    wide = utf16_without_bom(sample)
    if wide is not None:
        return wide
    if looks_binary(sample):
        raise DatasetError(
            "this looks like a binary file, not text (it contains NUL or control bytes)", path=path
        )
    for enc in ("utf-8", "cp1252"):
        try:
            codecs.getincrementaldecoder(enc)("strict").decode(sample, final=False)
            return enc
        except UnicodeDecodeError:
            continue
    return "latin-1"


def looks_binary(sample: bytes) -> bool:
    if b"\x00" in sample:
        return True
    arr = np.frombuffer(sample, dtype=np.uint8)
    control = (arr < 32) & ~np.isin(arr, (9, 10, 12, 13))
    return bool(len(arr)) and control.mean() > 0.01


def check_encoding_name(encoding: str, path: Path) -> str:
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        raise DatasetError(f"unknown encoding {encoding!r}", path=path) from None


def detect_delimiter(text: str, path: Path) -> str:
    """The candidate whose per-line count is most consistent (and non-zero) over the first lines.

    Tab wins ties for ``.tsv`` files. A file with none of the candidates has one column (",").
    """
    lines = [ln for ln in text.splitlines()[: -1 if len(text) >= SAMPLE_BYTES - 4 else None] if ln.strip()][
        :100
    ]
    if not lines:
        return "\t" if path.suffix.lower() == ".tsv" else ","
    best, best_score = ",", (0.0, 0, False)
    for cand in DELIMITER_CANDIDATES:
        counts = [ln.count(cand) for ln in lines]
        if counts[0] == 0:
            continue
        consistency = sum(c == counts[0] for c in counts) / len(counts)
        score = (consistency, counts[0], cand == "\t" and path.suffix.lower() == ".tsv")
        if score > best_score:
            best, best_score = cand, score
    return best


def loads_json(text: str | bytes, error: type[Exception], what: str = "not valid JSON", *,
               file: str = "") -> object:
    """``json.loads`` with every failure as ``error(message)``: syntax (line, column), nesting too
    deep for the parser (a RecursionError otherwise), numbers too long to convert, a key given twice
    in one object (named by its path, after ``file``; JSON would keep the last one silently)."""
    try:
        return parse_json(text)
    except RepeatedKey as e:  # valid JSON, but ambiguous: not said to be invalid
        raise error(f"{file}: {e}" if file else str(e)) from None
    except json.JSONDecodeError as e:
        raise error(f"{what} (line {e.lineno}, column {e.colno}): {e.msg}") from None
    except RecursionError:
        raise error(f"{what}: nested too deeply for a document of this kind") from None
    except (ValueError, TypeError) as e:  # e.g. an integer with more than 4300 digits
        raise error(f"{what}: {too_many_digits(e) or e}") from None


def too_many_digits(exc: Exception) -> str | None:
    """What an integer past Python's 4,300-digit conversion limit is, said to a curator (Python's own
    message advises sys.set_int_max_str_digits()), or None for any other error."""
    found = re.search(r"value has (\d+) digits", str(exc))
    if found is None:
        return None
    return f"a number has {int(found.group(1)):,} digits, more than the 4,300 any number may have"
