"""``.svtsession`` files: a curator's set-up, saved and re-opened (JSON, versioned).

A session holds *where* the data is and *what* was declared and planned — dataset path, the
dataset's random public id in the ledger (if it had one when saved), the declared schema (kinds,
public bounds, neighbouring relation), the mechanism and its public parameters, the query list
and, for PMW and SparseProject, the run parameters of :mod:`svtgui.app.runs.linear` (the
universe's column specs and the release file). It never holds data, answers, noise, seeds,
budget figures, nor any hash of the data (a session file may be shared; a hash would let anyone
who knows all rows but one test the last one).
On opening, the dataset is checked *through the ledger*: its rows must be the ones the ledger
knows by the saved id (:mod:`svtgui.app.dataset_identity`), so copying or editing a session file
cannot change a budget.

The query list's provenance is kept with it: ``domains_from_data`` names each domain the list was
built from that was read off the data (as in a query file; the schema's own ``levels_from_data``
rides in the schema), so a reopened session refuses, or marks NOT differentially private, exactly
what the saved one did. A file without the field declared its domains.

Versions: 1 had no ``linear`` section; 2 adds it; 3 replaces ``dataset.fingerprint`` (the file's
plain SHA-256) by ``dataset.dataset_id`` (the ledger's random id). An older file is read through
:data:`MIGRATIONS` (one step per version), so old sessions keep opening; a newer file than this
build understands is refused rather than half-read.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from svtgui.app.outputs import Inputs, OutputConflict
from svtgui.app.params import Params
from svtgui.app.runs.linear import RELEASE_SUFFIX, RUN_PARAMS
from svtgui.core import mechanisms
from svtgui.core.keys import unknown_key
from svtgui.core.validation import beyond_double

if TYPE_CHECKING:  # annotations only: the data layer is imported where a session is opened
    from svtgui.app.workspace import Workspace
    from svtgui.data.dataset import Dataset
    from svtgui.data.queries import Query
    from svtgui.data.schema import Schema
    from svtgui.ledger import Ledger

LINEAR_KEYS = tuple(dict.fromkeys(k for keys in RUN_PARAMS.values() for k in keys))  # universe, release_out

SESSION_FORMAT = "svtgui-session"
SESSION_VERSION = 3
SUFFIX = ".svtsession"
_FIELDS = {"format", "version", "dataset", "mechanism", "queries", "monotonic", "saved_by", "linear",
           "domains_from_data"}
# the keys of the sections (a misspelled dataset_id switched off the check of the rows: issue 22 §3)
_DATASET_FIELDS = {"path", "name", "schema", "dataset_id"}
_MECHANISM_FIELDS = {"id", "params"}
_NOT_SAVED = ("rng", "trace", "allow_non_private", "seed")

#: A session file's JSON object, or one of its sections (``Any``: JSON values, checked field by field
#: by :meth:`Session.check`).
Document = dict[str, Any]


def _from_v1(doc: Document, where: str) -> Document:
    """Version 1 → 2: version 1 had no ``linear`` section (PMW/SparseProject could not be saved)."""
    if "linear" in doc:
        raise SessionError(f"{where}: unknown field 'linear' (a version 1 session has none)")
    return {**doc, "version": 2}


def _from_v2(doc: Document, where: str) -> Document:
    """Version 2 → 3: drop the plain SHA-256 of the data; the dataset is then checked by the ledger
    (a version 2 file names no ledger id, so the rows it opens get whatever budget they have)."""
    dataset = doc.get("dataset")
    if isinstance(dataset, dict):
        dataset = {k: v for k, v in dataset.items() if k != "fingerprint"}
    return {**doc, "dataset": dataset, "version": 3}


# MIGRATIONS[v] turns a version-v document into a version-(v + 1) one.
MIGRATIONS = {1: _from_v1, 2: _from_v2}
_DATASET_ID = re.compile(r"ds-[0-9a-f]{16}")


def param_type_error(kind: str, value: object) -> str | None:
    """What is wrong with ``value`` for a catalogue parameter of ``kind`` ("float", "int", "bool",
    "str"), or None: JSON's ``true`` is not the number 1 and ``"2"`` is not 2 (shared by sessions
    and the CLI's --param / [params]). ``null`` leaves an optional parameter at its default."""
    if value is None:
        return None
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if number and beyond_double(value):
        # float(10**400) is an OverflowError, which ended --param sensitivity=1000…0 in exit 70
        return f"must be a number within ±1.8e308, got an integer of {len(str(abs(value)))} digits"
    fits = {"float": number, "int": number and float(value).is_integer(), "bool": isinstance(value, bool),
            "str": isinstance(value, str)}.get(kind, True)
    if fits:
        return None
    expected = {"float": "a number", "int": "an integer", "bool": "true or false"}.get(kind, "a string")
    return f"must be {expected}, got {json.dumps(value)}"


class SessionError(ValueError):
    """A session file that cannot be used; the message names the file and the field at fault."""


@dataclass
class Session:
    """What a ``.svtsession`` file holds (public set-up only)."""

    dataset_path: str
    dataset_id: str | None  # the ledger's random public id; None if the rows were new to it
    schema: Document
    mechanism_id: str
    params: Params
    queries: list[Document] = field(default_factory=list)
    monotonic: bool = False
    dataset_name: str = ""
    # PMW / SparseProject run parameters: "universe" (column specs), "release_out" (SparseProject)
    linear: Params = field(default_factory=dict)
    # The domains read off the data that the query list was built from (svtgui.data.provenance)
    domains_from_data: tuple[str, ...] = ()

    @classmethod
    def from_state(cls, dataset: Dataset, queries: Sequence[Query], mechanism_id: str, params: Params,
                   monotonic: bool = False, domains_from_data: tuple[str, ...] = ()) -> Session:
        """Capture the GUI/CLI state (a loaded ``Dataset``, ``Query`` objects, chosen parameters).

        ``params`` may hold the linear run parameters (as the runner takes them); they are kept in
        their own section, empty ones (no column chosen yet, no file) left out. A release path is
        saved absolute, so the session replays from any working directory.
        """
        params = dict(params)
        linear = {k: params.pop(k) for k in LINEAR_KEYS if k in params}
        linear = {k: v for k, v in linear.items() if v not in (None, "", [], ())}
        if isinstance(linear.get("universe"), str):
            linear["universe"] = [linear["universe"]]
        if isinstance(linear.get("release_out"), str | os.PathLike):
            linear["release_out"] = str(Path(linear["release_out"]).expanduser().resolve())
        session = cls(str(Path(dataset.path).resolve()) if dataset.path else "", dataset.dataset_id,
                      dataset.schema.to_json(), mechanism_id, params, [q.to_json() for q in queries],
                      bool(monotonic), dataset.name, linear, tuple(domains_from_data))
        session.check()
        return session

    @classmethod
    def from_workspace(cls, workspace: Workspace) -> tuple[Session, list[str]]:
        """The set-up of a :class:`~svtgui.app.workspace.Workspace`, and the parameters left out
        because they do not parse now (a session never holds an invalid value)."""
        params, problems = workspace.parameters()
        session = cls.from_state(workspace.dataset, workspace.queries, workspace.mechanism_id, params,
                                 workspace.monotonic_requested(), workspace.queries_from_data)
        return session, sorted(problems)

    def apply_to(self, workspace: Workspace) -> None:
        """Put the saved mechanism, parameters and run parameters into ``workspace`` (whose dataset
        and queries the caller has set from :meth:`adopt` and :meth:`query_objects`)."""
        entries = {k: v for k, v in self.params.items() if k != "sensitivity"}  # Δ follows the queries
        entries.update({"universe": list(self.linear.get("universe", [])),
                        "release_out": self.linear.get("release_out", ""), "monotonic": self.monotonic})
        workspace.set_mechanism(self.mechanism_id)
        workspace.set_entries(entries)

    def run_params(self) -> Params:
        """The parameters as :func:`svtgui.app.runs.runner.start_run` takes them (linear ones included)."""
        return {**self.params, **self.linear}

    def check(self, where: str = "session") -> None:
        """Validate every field (mechanism, parameters, schema, queries) without touching any data."""
        from svtgui.data.queries import domains_from_data, queries_from_json
        from svtgui.data.schema import Schema

        if self.dataset_id is not None and not (isinstance(self.dataset_id, str)
                                                and _DATASET_ID.fullmatch(self.dataset_id)):
            raise SessionError(f"{where}: field 'dataset.dataset_id' must be a ledger dataset id "
                               f"(ds- and 16 hex digits), got {self.dataset_id!r}")
        try:
            info = mechanisms.info(self.mechanism_id)
        except ValueError as exc:
            raise SessionError(f"{where}: field 'mechanism.id': {exc}") from None
        if not isinstance(self.params, dict):
            raise SessionError(f"{where}: field 'mechanism.params' must be an object")
        kinds = {p.name: p.kind for p in info.params}
        for key, value in self.params.items():
            if key in _NOT_SAVED or key not in kinds:
                raise SessionError(f"{where}: unknown key 'mechanism.params.{key}': {self.mechanism_id} has "
                                   f"no saved parameter {key!r}; its parameters: {', '.join(sorted(kinds))}")
            problem = param_type_error(kinds[key], value)
            if problem:
                raise SessionError(f"{where}: field 'mechanism.params.{key}' {problem}")
        self._check_linear(where)
        try:
            Schema.from_json(self.schema, "dataset.schema")
        except ValueError as exc:
            raise SessionError(f"{where}: field 'dataset.schema': {exc}") from None
        try:
            queries_from_json(self.queries, "queries")
        except ValueError as exc:
            raise SessionError(f"{where}: field 'queries': {exc}") from None
        try:
            notes = self.domains_from_data  # a tuple when built here, the JSON value when read
            self.domains_from_data = domains_from_data(list(notes) if isinstance(notes, tuple) else notes)
        except ValueError as exc:
            raise SessionError(f"{where}: {exc}") from None

    def _check_linear(self, where: str) -> None:
        """The linear section: only for PMW/SparseProject, only their keys, well-formed values (the
        universe's columns and the release directory are checked against the data at run time)."""
        if not isinstance(self.linear, dict):
            raise SessionError(f"{where}: field 'linear' must be an object")
        allowed = RUN_PARAMS.get(self.mechanism_id, ())
        for key, value in self.linear.items():
            if key not in allowed:
                raise SessionError(f"{where}: unknown key 'linear.{key}': not a run parameter of "
                                   f"{self.mechanism_id}" + (f" (its run parameters: {', '.join(allowed)})"
                                                             if allowed else ""))
            if key == "universe" and (not isinstance(value, list) or not value or not all(
                    isinstance(v, str) and v.strip() for v in value)):
                raise SessionError(f"{where}: field 'linear.universe' must be a non-empty list of column "
                                   f"specs (e.g. [\"sex\", \"age@17,25,35,91\"]), got {value!r}")
            if key == "release_out" and (not isinstance(value, str) or not value.endswith(RELEASE_SUFFIX)):
                raise SessionError(f"{where}: field 'linear.release_out' must be a path ending in "
                                   f"{RELEASE_SUFFIX}, got {value!r}")

    def to_json(self) -> Document:
        from svtgui import __version__

        doc = {"format": SESSION_FORMAT, "version": SESSION_VERSION, "saved_by": f"svtgui {__version__}",
               "dataset": {"path": self.dataset_path, "name": self.dataset_name, "schema": self.schema,
                           **({"dataset_id": self.dataset_id} if self.dataset_id else {})},
               "mechanism": {"id": self.mechanism_id, "params": self.params},
               "monotonic": self.monotonic, "queries": self.queries}
        if self.linear:
            doc["linear"] = dict(self.linear)
        if self.domains_from_data:
            doc["domains_from_data"] = list(self.domains_from_data)
        return doc

    def query_objects(self) -> list[Query]:
        from svtgui.data.queries import queries_from_json

        return queries_from_json(self.queries)

    def schema_object(self) -> Schema:
        from svtgui.data.schema import Schema

        return Schema.from_json(self.schema)

    def open_dataset(self, ledger: Ledger, session_path: str | os.PathLike[str] | None = None) -> Dataset:
        """Load the dataset and check, through ``ledger``, that its rows are the dataset saved.

        A missing absolute path is also tried next to the session file (a moved project folder).
        The saved schema (declared bounds and relation) replaces the inferred one.
        """
        from svtgui.data import load_dataset

        return self.adopt(load_dataset(self.dataset_location(session_path)), ledger)

    def dataset_location(self, session_path: str | os.PathLike[str] | None = None) -> Path:
        """Where the dataset is: its saved path, or a file of that name beside the session file.

        Split from :meth:`open_dataset` so the GUI can load the file on its own loader thread.
        """
        if not self.dataset_path.strip():  # read as '.': "PosixPath('.') has an empty name"
            raise SessionError(f"{session_path or 'the session'}: field 'dataset.path' is empty: the session "
                               "names no data file (its data was built in memory)")
        path = Path(self.dataset_path)
        if not path.exists() and session_path is not None:
            beside = Path(session_path).parent / path.name
            if beside.exists():
                path = beside
        return path

    def adopt(self, ds: Dataset, ledger: Ledger) -> Dataset:
        """``ds`` with the saved schema, or ``SessionError`` if the ledger does not know its rows as
        the saved dataset id (the file has changed, or another ledger is in use)."""
        from svtgui.app.dataset_identity import identify

        path = ds.path or self.dataset_path
        found = identify(ledger, ds).record
        if self.dataset_id is not None:
            if found is None or found.dataset_id != self.dataset_id:
                now = f"they are dataset {found.dataset_id}" if found else "the ledger does not know them"
                raise SessionError(
                    f"{path} is not the dataset this session was saved with ({self.dataset_id} in the ledger "
                    f"{ledger.path}): {now}. The file has changed, or another ledger is in use; open the "
                    "original file or start a new session.")
        try:  # the saved schema must fit the data: kinds the values can have, n under replace
            schema = ds.schema.merged(self.schema_object())
            schema.check_rows(ds.n_rows)
            return ds.with_schema(schema)
        except ValueError as exc:
            raise SessionError(f"{path}: the saved schema does not fit the data: {exc}") from None


def save(session: Session, path: str | os.PathLike[str], inputs: Inputs | None = None) -> Path:
    """Write ``session`` as JSON (atomically: a crash never leaves half a file), never over one of
    ``inputs`` (:mod:`svtgui.app.outputs`: the dataset, its sidecar, the ledger), which raises
    :class:`SessionError`."""
    session.check()
    p = Path(path)
    if p.suffix != SUFFIX:
        p = p.with_name(p.name + SUFFIX)
    try:
        (inputs or Inputs()).guard(p)
    except OutputConflict as exc:
        raise SessionError(str(exc)) from None
    text = json.dumps(session.to_json(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p


def load(path: str | os.PathLike[str]) -> Session:
    """Read and validate a session file (``SessionError`` naming the file and field otherwise)."""
    from svtgui.data import DatasetError, textio

    p = Path(path)
    try:
        text = textio.read_text(p, what="session file")
    except DatasetError as exc:
        raise SessionError(str(exc)) from None
    doc = textio.loads_json(text, SessionError, f"{p}: not valid JSON", file=str(p))
    if not isinstance(doc, dict) or doc.get("format") != SESSION_FORMAT:
        raise SessionError(f"{p}: not an SVT Studio session file (field 'format' must be {SESSION_FORMAT!r})")
    version = doc.get("version")
    if type(version) is not int or version < 1:  # true is not version 1
        raise SessionError(f"{p}: field 'version' must be a positive integer, got {version!r}")
    if version > SESSION_VERSION:
        raise SessionError(f"{p}: session version {version} is newer than this SVT Studio understands "
                           f"({SESSION_VERSION}); upgrade SVT Studio")
    for v in range(version, SESSION_VERSION):
        doc = MIGRATIONS[v](doc, str(p))
    ds, mech = _section(doc, "dataset", p), _section(doc, "mechanism", p)
    for section, keys, where in ((doc, _FIELDS, ""), (ds, _DATASET_FIELDS, "dataset"),
                                 (mech, _MECHANISM_FIELDS, "mechanism")):
        if unknown := unknown_key(section, keys, where):
            raise SessionError(f"{p}: {unknown}")
    for where, section, key, kind in _SHAPES:
        value = (doc if where is None else ds if where == "dataset" else mech).get(key)
        if value is None and key in _REQUIRED:
            raise SessionError(f"{p}: field '{where}.{key}' is missing")
        if value is not None and not isinstance(value, kind):
            raise SessionError(f"{p}: field '{section}' must be {_KIND_NAMES[kind]}, "
                               f"got {type(value).__name__}")
    if "\0" in ds["path"]:  # it failed later as "embedded null byte", naming no file or field
        raise SessionError(f"{p}: field 'dataset.path' cannot hold a NUL character")

    session = Session(ds["path"], ds.get("dataset_id"), ds["schema"], mech["id"], mech.get("params", {}),
                      doc.get("queries", []), doc.get("monotonic", False), ds.get("name", ""),
                      doc.get("linear", {}), doc.get("domains_from_data", ()))
    try:
        session.check(str(p))
    except (TypeError, AttributeError, KeyError, OverflowError, RecursionError) as exc:
        raise SessionError(f"{p}: a field has the wrong type ({exc})") from None
    return session


def _section(doc: Document, name: str, p: Path) -> Document:
    value = doc.get(name)
    if not isinstance(value, dict):
        what = "missing" if value is None else f"a {type(value).__name__}"
        raise SessionError(f"{p}: field '{name}' must be an object, got {what}")
    return value


_REQUIRED = ("path", "schema", "id")
# (section or None for the top level, dotted name, key, the JSON type it must have)
_SHAPES: tuple[tuple[str | None, str, str, type], ...] = (
    ("dataset", "dataset.path", "path", str),
    ("dataset", "dataset.dataset_id", "dataset_id", str),
    ("dataset", "dataset.schema", "schema", dict),
    ("dataset", "dataset.name", "name", str),
    ("mechanism", "mechanism.id", "id", str),
    ("mechanism", "mechanism.params", "params", dict),
    (None, "queries", "queries", list),
    (None, "monotonic", "monotonic", bool),
    (None, "linear", "linear", dict),
    (None, "saved_by", "saved_by", str),
)
_KIND_NAMES = {str: "a string", dict: "an object", list: "a list", bool: "true or false"}
