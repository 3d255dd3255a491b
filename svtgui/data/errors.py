"""The one exception a curator sees when a file cannot be used as a dataset."""

from __future__ import annotations

from pathlib import Path


class DatasetError(Exception):
    """A file that cannot be loaded, or data that does not fit a query; names file, line, column.

    ``line`` is 1-based and counts physical lines of the file (the header is line 1).
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        column: str | int | None = None,
    ) -> None:
        self.message = message
        self.path = None if path is None else Path(path)
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.path is not None:
            where.append(f"{self.path}")
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(
                f"column {self.column!r}" if isinstance(self.column, str) else f"column {self.column}"
            )
        return f"{', '.join(where)}: {self.message}" if where else self.message


class LoadCancelled(DatasetError):
    """The user cancelled a load (its progress state said cancelled) (nothing was loaded)."""


class InputFileError(DatasetError):
    """A path that cannot be read as a text or data file: missing, not a regular file, too large,
    undecodable. Raised by :func:`svtgui.data.textio.read_text` for every text input (queries,
    schema, config, session), so each caller turns one error type into its own message."""


def load_failure_text(exc: BaseException, path: str | Path | None) -> str:
    """A sentence for the window about any failed load (never a bare exception name)."""
    where = f"{path}: " if path is not None else ""
    if isinstance(exc, DatasetError):
        return str(exc)
    if isinstance(exc, MemoryError):
        return f"{where}there is not enough memory to load this file"
    if isinstance(exc, RecursionError):
        return f"{where}the file is nested too deeply to be read"
    if isinstance(exc, OSError):
        return f"{where}the file cannot be read: {exc.strerror or exc}"
    if isinstance(exc, ValueError) and str(exc):
        return f"{where}{exc}"
    detail = str(exc) or type(exc).__name__
    return (f"{where}the file could not be loaded because of an unexpected problem in SVT Studio "
            f"({detail}); please report it, saying which kind of file it was")


class DeclaredSchemaError(DatasetError):
    """The declared schema (``LoadOptions.schema``, else the data's sidecar) cannot be read or does not
    fit the data. ``given`` says whether the caller named the file (``--schema``, a config's or a
    session's key), so the refusal can name where it was given rather than the data; ``detail`` is
    the problem after the schema file's name (``s.json: column 'age': …``)."""

    def __init__(self, detail: str, *, given: bool, path: str | Path | None = None) -> None:
        self.detail = detail if path is None else f"{path}: {detail}"
        self.given = given
        super().__init__(f"schema: {detail}", path=path)

