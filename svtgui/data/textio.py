"""Reading a file's bytes exactly once: hashing, progress, cancellation, encoding and shape checks.

Every loader reads through a :class:`StreamingReader`. While the parser pulls bytes, the reader
feeds them to SHA-256 (the dataset fingerprint: a content hash, so a renamed or reloaded file keeps
its budget), reports the fraction read, honours ``Progress.cancel()``, and, for delimited text,
checks two things the parser reports badly or not at all:

* **encoding**: bytes are run through a strict incremental decoder, so an undecodable byte is
  reported with its line number instead of an opaque offset;
* **ragged rows**: the number of delimiters per line is counted vectorised (numpy) and a line whose
  field count differs from the header's is reported with its line number. pandas silently pads
  short rows with missing values, which would turn a broken file into wrong answers. The check is
  switched off once a quote character appears, since quoted fields may contain delimiters.
"""

from __future__ import annotations

import codecs
import hashlib
import io
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from svtgui.data.errors import DatasetError, LoadCancelled

SAMPLE_BYTES = 1 << 16
DELIMITER_CANDIDATES = (",", "\t", ";", "|")


class Progress:
    """Progress reporting and cancellation for a load (the GUI's worker thread passes one in).

    ``callback(fraction)`` is called with a number in [0, 1] as bytes are read (at most about a
    hundred times per load). ``cancel()`` may be called from any thread; the loader then raises
    :class:`LoadCancelled` at its next read.
    """

    def __init__(self, callback: Callable[[float], None] | None = None) -> None:
        self.callback = callback
        self._cancel = threading.Event()
        self._last = -1.0

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def report(self, fraction: float) -> None:
        """Forward ``fraction`` (rate-limited to 1% steps); raise ``LoadCancelled`` if cancelled."""
        if self._cancel.is_set():
            raise LoadCancelled("loading was cancelled")
        fraction = min(max(fraction, 0.0), 1.0)
        if self.callback is not None and (fraction - self._last >= 0.01 or fraction == 1.0):
            self._last = fraction
            self.callback(fraction)


class FieldCounter:
    """Counts delimiter bytes per line across chunk boundaries to find ragged rows."""

    def __init__(self, path: Path, delimiter: str) -> None:
        self.path = path
        self.byte = ord(delimiter)
        self.expected: int | None = None
        self.line = 0  # physical lines completed so far
        self.carry = b""
        self.active = True

    def feed(self, data: bytes, final: bool = False) -> None:
        if not self.active:
            return
        if b'"' in data:
            self.active = False  # quoted fields may hold delimiters or newlines: leave it to the parser
            return
        buf = self.carry + data
        arr = np.frombuffer(buf, dtype=np.uint8)
        ends = np.flatnonzero(arr == 10)
        if final and len(buf) and (not len(ends) or ends[-1] != len(buf) - 1):
            ends = np.append(ends, len(buf))
        if not len(ends):
            self.carry = buf
            return
        starts = np.concatenate(([0], ends[:-1] + 1))
        delims = np.flatnonzero(arr == self.byte)
        counts = np.searchsorted(delims, ends) - np.searchsorted(delims, starts)
        lengths = ends - starts
        # a line holding only "\r" or spaces is blank; pandas skips blank lines, so do we
        blank = lengths == 0
        if np.any(~blank):
            stripped = [
                i
                for i in np.flatnonzero(~blank & (lengths <= 2) & (counts == 0))
                if not buf[starts[i] : ends[i]].strip()
            ]
            blank[stripped] = True
        check = np.flatnonzero(~blank)
        if len(check):
            if self.expected is None:
                self.expected = int(counts[check[0]])
            bad = check[counts[check] != self.expected]
            if len(bad):
                i = int(bad[0])
                raise DatasetError(
                    f"ragged row: {counts[i] + 1} fields where the header has {self.expected + 1}",
                    path=self.path,
                    line=self.line + i + 1,
                )
        self.line += len(ends)
        self.carry = buf[ends[-1] + 1 :] if not final else b""


class StreamingReader(io.RawIOBase):
    """A raw binary stream over a file that hashes, reports progress and validates as it is read."""

    def __init__(
        self,
        path: Path,
        progress: Progress | None,
        *,
        encoding: str | None = None,
        delimiter: str | None = None,
        span: tuple[float, float] = (0.0, 1.0),
    ) -> None:
        super().__init__()
        self.path = path
        self._f = open(path, "rb")  # noqa: SIM115 - closed in close()
        self.size = max(path.stat().st_size, 1)
        self.hasher = hashlib.sha256()
        self.bytes_read = 0
        self.progress = progress
        self.span = span
        self.encoding = encoding
        self.decoder = codecs.getincrementaldecoder(encoding)("strict") if encoding else None
        self.lines_done = 0  # for locating decoding errors
        ascii_compatible = encoding is None or codecs.lookup(encoding).name not in _WIDE_ENCODINGS
        self.fields = (
            FieldCounter(path, delimiter)
            if delimiter and ascii_compatible and len(delimiter) == 1 and ord(delimiter) < 128
            else None
        )

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[override]
        data = self._f.read(len(b))
        final = not data
        if data:
            self.hasher.update(data)
            self.bytes_read += len(data)
            b[: len(data)] = data
        self._check(data, final)
        if self.progress is not None:
            lo, hi = self.span
            self.progress.report(lo + (hi - lo) * self.bytes_read / self.size)
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
    progress: Progress | None,
    *,
    encoding: str | None = None,
    delimiter: str | None = None,
    span: tuple[float, float] = (0.0, 1.0),
) -> StreamingReader:
    return StreamingReader(path, progress, encoding=encoding, delimiter=delimiter, span=span)


def hash_file(path: Path, progress: Progress | None = None, span: tuple[float, float] = (0.0, 1.0)) -> str:
    """SHA-256 of a file, streamed (for formats whose parser opens the file itself)."""
    with open_stream(path, progress, span=span) as r:
        while r.read(1 << 20):
            pass
        return r.fingerprint


def read_sample(path: Path) -> bytes:
    with open(path, "rb") as f:
        return f.read(SAMPLE_BYTES)


def detect_encoding(sample: bytes, path: Path) -> str:
    """BOM, else strict UTF-8, else Windows-1252, else Latin-1; binary files are refused."""
    if sample.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if sample.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
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
