"""``--config RUN.toml``: read through the guarded reader, every key checked for its type.

TOML has types, so a config can say ``report = 5`` or ``monotonic = "no"``: both are refused with
the key and the type expected, never taken as truthy or passed on to fail later as a traceback.
Relative paths are resolved against the config file's folder.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import tomllib
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from svtgui.cli.errors import CliError
from svtgui.core.keys import unknown_key
from svtgui.data import DatasetError, textio

CONFIG_LIMIT = 1 << 20  # a run's options: a megabyte is already absurd

_TEXT, _NUMBER, _INTEGER, _BOOL, _TABLE = "a string", "a number", "an integer", "true or false", "a table"
_TEXTS = "a string or a list of strings"
_AMOUNT = "a number or a string holding one"
# the type each key must have (keys a command accepts that are missing here are not type-checked)
KEY_TYPES = {
    "data": _TEXT, "queries": _TEXT, "schema": _TEXT, "mechanism": _TEXT, "ledger": _TEXT,
    "release_out": _TEXT, "same_dataset_as": _TEXT,
    "report": _TEXTS, "universe": _TEXTS,
    "epsilon": _NUMBER, "delta": _NUMBER, "threshold": _NUMBER,
    "cutoff": _INTEGER, "seed": _INTEGER, "test_seed": _INTEGER, "batch_size": _INTEGER,
    "budget_epsilon": _AMOUNT, "budget_delta": _AMOUNT,
    "monotonic": _BOOL, "new_dataset": _BOOL,
    "params": _TABLE,
    "engine": _TEXT, "spark_master": _TEXT, "spark_conf": _TEXTS, "spark_timeout": _NUMBER,
}


def _fits(value: Any, kind: str) -> bool:
    if kind == _TEXT:
        return isinstance(value, str)
    if kind == _TEXTS:
        return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
    if kind == _NUMBER:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == _INTEGER:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == _AMOUNT:
        return isinstance(value, int | float | str) and not isinstance(value, bool)
    if kind == _BOOL:
        return isinstance(value, bool)
    return isinstance(value, dict)


def _type_name(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array",
            dict: "a table"}.get(type(value), type(value).__name__)


def budget_amount(text: Any, *, delta: bool = False) -> str:
    """A budget total as typed (``--budget-epsilon``, ``--total-delta``, a config value), checked
    the same way wherever it comes from: a decimal or fraction, ε > 0, δ in [0, 1), within the range
    of a double (the ledger prints and compares totals as doubles too). ``ValueError`` otherwise
    (the caller names the option); the text is returned stripped, for the ledger's exact arithmetic."""
    if isinstance(text, bool) or not isinstance(text, str | int | float):
        raise ValueError(f"must be a number, got {text!r}")
    value = str(text).strip()
    try:
        amount = Fraction(value)
        finite = math.isfinite(float(amount))
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{value!r} is not a number (write it like 2, 0.5 or 1/3)") from None
    except OverflowError:
        finite = False
    if not finite:
        raise ValueError(f"{value} is too large to be a budget")
    if delta and not 0 <= amount < 1:
        raise ValueError(f"δ must be in [0, 1), got {value}")
    if not delta and amount <= 0:
        raise ValueError(f"ε must be a number > 0, got {value}")
    return value


def amount_option(*, delta: bool = False) -> Any:
    """An argparse ``type`` for a budget total (see :func:`budget_amount`)."""

    def parse(text: str) -> str:
        try:
            return budget_amount(text, delta=delta)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


#: The largest integer an option takes: SQLite's INTEGER, and far beyond any count, cutoff or size
INTEGER_MAX = 2**63 - 1


def integer_option(text: str) -> int:
    """An argparse ``type`` for an integer option: a whole number of at most :data:`INTEGER_MAX`
    (a 401-digit --cutoff overflowed a float conversion later, exit 70 instead of this line)."""
    digits = text.strip().lstrip("+-").lstrip("0")
    if digits.isdigit() and len(digits) > len(str(INTEGER_MAX)):  # int() refuses past 4,300 digits
        raise argparse.ArgumentTypeError(too_large(len(digits)))
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an integer") from None
    if abs(value) > INTEGER_MAX:
        raise argparse.ArgumentTypeError(too_large(len(str(abs(value)))))
    return value


def too_large(digits: int) -> str:
    """Why an integer of ``digits`` digits beyond :data:`INTEGER_MAX` is refused, without its digits."""
    return f"an integer of {digits:,} digits is too large (at most {INTEGER_MAX:,})"


def seed_option(text: str) -> int:
    """An argparse ``type`` for a seed: a non-negative integer (numpy refuses -1 with 'expected
    non-negative integer', naming no option)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed is a non-negative integer, got {value}")
    return value


def check_param_types(kinds: dict[str, str], params: dict[str, Any], *, config: str | None = None,
                      extra: Sequence[str] = ()) -> None:
    """Catalogue parameters of the right JSON type (``kinds``: name → "float", "int", "bool" or
    "str"), from --param or, with ``config`` (the file), from its [params] table — each error
    named where it was typed (a [params] error read "--param"). A [params] table is strict: a name
    that is neither a catalogue parameter nor one of ``extra`` (the run parameters) is an unknown
    key; a --param name the catalogue does not know is left to the plan, which lists the known ones."""
    from svtgui.app.project_file import param_type_error

    for name, value in params.items():
        if config is not None and name not in kinds and name not in extra:
            raise CliError(f"--config {config}: {unknown_key({name: value}, [*kinds, *extra], 'params')}")
        problem = param_type_error(kinds[name], value) if name in kinds else None
        if problem:
            raise CliError(f"--config {config}: key 'params.{name}' {problem}" if config is not None
                           else f"--param {name}: {problem}")


def typed_path(value: str, option: str) -> str:
    """A file path as given, checked and with a leading ``~`` or ``~user`` expanded, as the shell does
    before a command sees it (but not in ``--data=~/x`` nor in a config): a ``~user`` this system
    does not know (``--data ~adult.csv`` was an internal error, exit 70) and a NUL character (a
    config's ``"a\\u0000b.csv"`` read "embedded null byte", naming no key) are refused naming
    ``option``."""
    if "\0" in value:
        raise CliError(f"{option} {value!r}: a path cannot hold a NUL character")
    if not value.startswith("~"):
        return value
    expanded = os.path.expanduser(value)
    if expanded.startswith("~"):
        user = value[1:].split("/", 1)[0].split(os.sep, 1)[0]
        who = f"no user {user!r} on this system" if user else "no home folder ($HOME) here"
        raise CliError(f"{option} {value}: {who} to expand '~{user}' for; give the path in full")
    return expanded


def read_config(path: str | Path, keys: Sequence[str], path_keys: Sequence[str]) -> dict[str, Any]:
    """The options of a TOML config (``-`` in keys read as ``_``), checked; ``CliError`` naming the
    file and key otherwise. ``path_keys`` are resolved relative to the file; ``report`` becomes a list."""
    path = Path(path)
    try:
        text = textio.read_text(path, what="config file", limit=CONFIG_LIMIT, allow_empty=True)
    except DatasetError as exc:
        raise CliError(f"--config: {exc}") from None
    try:
        conf = tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, or an integer past Python's 4,300 digits
        raise CliError(f"--config: {path}: not valid TOML: {textio.too_many_digits(exc) or exc}") from None
    except RecursionError:
        raise CliError(f"--config: {path}: not valid TOML: nested too deeply") from None
    spelled: dict[str, str] = {}
    for key in conf:  # 'release-out' and 'release_out' are one key: TOML cannot see the repeat
        if (other := spelled.setdefault(key.replace("-", "_"), key)) != key:
            raise CliError(f"--config: {path}: keys {other!r} and {key!r} are the same option given twice; "
                           "keep one")
    conf = {k.replace("-", "_"): v for k, v in conf.items()}
    if unknown := unknown_key(conf, keys):
        raise CliError(f"--config: {path}: {unknown}")
    for key, value in conf.items():
        kind = KEY_TYPES.get(key)
        if kind is not None and not _fits(value, kind):
            raise CliError(f"--config: {path}: key {key!r} must be {kind}, got {_type_name(value)} {value!r}")
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > INTEGER_MAX:
            raise CliError(f"--config: {path}: key {key!r}: {too_large(len(str(abs(value))))}")
        if key in ("seed", "test_seed") and value < 0:
            raise CliError(f"--config: {path}: key {key!r}: a seed is a non-negative integer, got {value}")
        if kind == _AMOUNT:
            try:
                conf[key] = budget_amount(value, delta=key.endswith("delta"))
            except ValueError as exc:
                raise CliError(f"--config: {path}: key {key!r}: {exc}") from None
    for key in path_keys:
        if conf.get(key) == "" or (isinstance(conf.get(key), list) and "" in conf[key]):
            raise CliError(f"--config: {path}: key {key!r} is an empty path")  # it would name the folder
        where = f"--config {path}: key {key!r}:"  # '~/adult.csv' was read as a folder '~' beside the config
        if isinstance(conf.get(key), str):
            conf[key] = str(path.parent / typed_path(conf[key], where))
        elif isinstance(conf.get(key), list):
            conf[key] = [str(path.parent / typed_path(v, where)) for v in conf[key]]
    if isinstance(conf.get("report"), str):
        conf["report"] = [conf["report"]]
    return conf


_OPTION = re.compile(r"(^|; )--([a-z][a-z-]*)(?=([ :]))")  # an option that starts one of a line's problems


def named_where_given(exc: BaseException, args: argparse.Namespace) -> BaseException:
    """``exc`` as the curator gave the values: a problem that starts with an option (``--report
    notes.txt/r.html: notes.txt is a file``) whose value came from ``--config`` names the config's
    key instead (``--config run.toml: key 'report': …``), as a ``[params]`` error does, and one whose
    value came from a session's ``linear`` section names that field (``--session s.svtsession: field
    'linear.release_out': …``); an option typed on the command line (which wins) keeps its name."""
    if not isinstance(exc, CliError):
        return exc
    config, session = getattr(args, "config", None), getattr(args, "session", None)
    from_config = _config_keys(config) if config else set()
    from_session = _session_linear_keys(session) if session else set()

    def source(found: re.Match[str]) -> str:
        key = found.group(2).replace("-", "_")
        if getattr(args, key, None) not in (None, [], False):
            return found.group(0)
        colon = ":" if found.group(3) == " " else ""  # "--schema s.json: …" → "key 'schema': s.json: …"
        if key in from_config:
            return f"{found.group(1)}--config {config}: key {key!r}{colon}"
        if key in from_session:
            return f"{found.group(1)}--session {session}: field 'linear.{key}'{colon}"
        return found.group(0)

    text = _OPTION.sub(source, str(exc))
    return exc if text == str(exc) else CliError(text, exc.code)


def _session_linear_keys(path: str | Path) -> set[str]:
    """The keys of a session file's ``linear`` section (an unreadable file: none). Read through the
    guarded reader: the refusal being renamed may be that the file is a FIFO, which would block."""
    try:
        linear = json.loads(textio.read_text(path, what="session file")).get("linear")
    except (DatasetError, ValueError, AttributeError):
        return set()
    return set(linear) if isinstance(linear, dict) else set()


def _config_keys(path: str | Path) -> set[str]:
    """The top-level keys of a config (an unreadable one: none), read as :func:`read_config` reads it:
    never a FIFO (``--config pipe`` hung on the way to its refusal)."""
    try:
        text = textio.read_text(path, what="config file", limit=CONFIG_LIMIT, allow_empty=True)
        return {k.replace("-", "_") for k in tomllib.loads(text)}
    except (DatasetError, ValueError):
        return set()
