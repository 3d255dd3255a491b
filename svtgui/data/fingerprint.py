"""The private fingerprint that keys a dataset's budget in the ledger: one keyed digest per column.

Why keyed and private: a plain hash of the data is a function of every row, so anyone who knows all
rows but one can test candidate values against it (ε = ∞ for that row). Every digest here is keyed
by the ledger's random secret key and stored only in the ledger: nothing public (report, export,
session file, window title, log) carries one.

Why per column, and blind to names: the budget must follow the *people*, not the file. The same rows
re-saved with another line ending, quoting, encoding, row order, column order or file format, or
with a header renamed (``hours_per_week`` → ``hours-per-week``) or upper-cased, must find the same
budget; rows that share most of their columns with a known dataset (one column dropped, added or
changed, another renamed) must make the curator say whether they are the same dataset. So each
column gets a fingerprint of the *multiset of its canonical values* — never of its name or position
— and the rows' identity is the sorted list of their column fingerprints (:attr:`RowsFingerprint.content`).
Two files whose columns hold the same values (in any pairing across rows) share a budget: merging is
the conservative direction, a fresh budget never follows from it. Beside the columns, a *row sketch*
(the smallest few hundred distinct keyed row hashes, each row's hash blind to names and order too)
lets the ledger see rows that share most of a known dataset's rows while no column is left intact:
one row removed or added (a neighbouring dataset), a sample, a cell changed in every column
(:func:`shared_rows`).

Canonical values (stable: a change here gives every known dataset a new identity, so it needs a
ledger migration):

* a number (integer, float, decimal, boolean as 0/1) is its float64 value, ``-0.0`` as ``0.0``;
  integers above 2**53 may merge with a neighbour;
* text is stripped of surrounding white space; a text equal to a missing marker of any loader
  (:data:`MARKERS`) is missing; a text that spells a decimal number (``"39"``, ``" 1.50"``) is that
  number, so a column read as text by one tool and as numbers by another is the same column;
* a date or time is its instant in microseconds (UTC; finer digits are dropped);
* an item set (a list cell) is the multiset of its items, each canonical as above;
* missing (null, NaN, NaT, a marker) is one value of its own.

Construction: each cell's canonical value gets a 64-bit keyed hash (SipHash for text, a keyed
splitmix64 finaliser for numbers, instants and sets); per column, the hashes and their squares are
summed modulo 2**64 (two lanes of a multiset hash: order-free, a repeated value counts twice,
batches and partitions merge by addition) and the smallest and largest hash are kept (a column
whose cells are all one value tells nothing about who the rows are: it never makes two datasets
look alike). A column's digest is SHA-256 of the key, the row count and the two sums.

Where the work runs: the cell hashes use a *cell key* derived from the ledger key
(:func:`cell_key`), so an engine's executors (Spark) compute partial sums per partition without ever
holding the ledger key; the digests are made on the curator's machine. This module imports nothing
else from SVT Studio, so Spark can ship it to executors by value.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # imported where texts are hashed or frames read: a cached fingerprint never loads it
    import pandas as pd
    import pyarrow as pa
else:
    class _Pyarrow:
        """pyarrow, imported where the first cell is hashed: a re-open reads the fingerprint from the
        ledger's cache and hashes nothing, so it never pays pyarrow's import (about 0.045 s of a CLI
        run's start-up). The first use replaces this stand-in in the module by pyarrow itself."""

        def __getattr__(self, name: str) -> Any:
            import pyarrow

            globals()["pa"] = pyarrow
            return getattr(pyarrow, name)

    pa = _Pyarrow()

KEY_BYTES = 32
CHUNK_ROWS = 32_768
SKETCH_ROWS = 256
"""How many row hashes the rows' sketch keeps (the smallest distinct ones): enough to tell whether
two datasets share most of their rows to within about ±6 %."""
SHARED_ROWS = 0.5
"""The share of the smaller dataset's distinct rows found in the other that makes them look alike."""
RELIABLE = 16
"""Fewer sampled rows than this in the range both sketches cover say nothing either way."""
VERSION = b"svtgui-column-v1"
#: Cell texts (after stripping white space) that some loader reads as missing: the default extra marker
#: ``?`` (``LoadOptions.missing``) and pandas' standard missing markers. Text equal to one is missing.
MARKERS = frozenset({"", "?", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
                     "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"})
_NUMBER = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"
_C1, _C2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def new_key() -> bytes:
    """A fresh fingerprint key from the OS CSPRNG (one per ledger, never leaves it)."""
    return secrets.token_bytes(KEY_BYTES)


def cell_key(key: bytes) -> bytes:
    """The key the cell hashes use, derived from the ledger key (what a Spark executor receives)."""
    if len(key) < 16:
        raise ValueError("the fingerprint key must be at least 16 bytes")
    return hmac.new(key, b"cells", hashlib.sha256).digest()


@dataclass(frozen=True)
class CellKeys:
    """The lanes derived from a cell key: one per kind of value, so a number never hashes as a text."""

    number: np.uint64
    instant: np.uint64
    items: np.uint64
    missing: np.uint64
    row: np.uint64
    text: str  # pandas' SipHash key: 16 characters

    @classmethod
    def of(cls, key: bytes) -> CellKeys:
        def lane(name: str) -> np.uint64:
            digest = hmac.new(key, name.encode(), hashlib.sha256).digest()
            return np.uint64(int.from_bytes(digest[:8], "little"))

        return cls(lane("number"), lane("instant"), lane("items"), lane("missing"), lane("row"),
                   hmac.new(key, b"text", hashlib.sha256).hexdigest()[:16])


def _mix(x: np.ndarray, k: np.uint64, out: np.ndarray | None = None) -> np.ndarray:
    """A keyed 64-bit mix (the splitmix64 finaliser of ``x`` xor the key): a bijection, so equal inputs
    give equal outputs and different inputs different ones. Into ``out`` (which may be ``x``) when
    given; one scratch array besides, since each step is a pass over memory."""
    z = np.bitwise_xor(np.asarray(x, dtype=np.uint64), k, out=out)
    t = np.right_shift(z, np.uint64(30))
    z ^= t
    z *= _C1
    z ^= np.right_shift(z, np.uint64(27), out=t)
    z *= _C2
    z ^= np.right_shift(z, np.uint64(31), out=t)
    return z


def _numbers(values: np.ndarray, keys: CellKeys) -> np.ndarray:
    """Hashes of float64 values (``-0.0`` as ``0.0``)."""
    return _mix((np.asarray(values, dtype=np.float64) + 0.0).view(np.uint64), keys.number)


def _texts(texts: pa.Array, keys: CellKeys) -> np.ndarray:
    """Hashes of distinct texts (no nulls): stripped; markers missing; decimal numbers as numbers."""
    import pandas as pd  # its SipHash, as every ledger has it (pa.array imports pandas too: kept here)
    import pyarrow.compute as pc

    stripped = pc.utf8_trim_whitespace(texts.cast(pa.string()))
    marker = pc.is_in(stripped, value_set=pa.array(sorted(MARKERS))).to_numpy(zero_copy_only=False)
    numeric = pc.match_substring_regex(stripped, _NUMBER).to_numpy(zero_copy_only=False)
    plain = np.asarray(stripped.to_numpy(zero_copy_only=False), dtype=object)
    out = pd.util.hash_array(plain, hash_key=keys.text, categorize=False).astype(np.uint64)
    if numeric.any():
        spelled = plain[numeric]
        try:
            parsed = pc.cast(pa.array(spelled, pa.string()), pa.float64()).to_numpy()
        except pa.ArrowInvalid:  # a number too long for Arrow's parser: Python's agrees with it otherwise
            parsed = np.array([float(t) for t in spelled])
        out[numeric] = _numbers(parsed, keys)
    out[marker] = keys.missing
    return out


def _is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_dictionary(t)


def _with_missing(hashes: np.ndarray, missing: np.ndarray | None, keys: CellKeys) -> np.ndarray:
    if missing is not None and missing.any():
        hashes = np.where(missing, keys.missing, hashes)
    return hashes


def _valid_mask(arr: pa.Array) -> np.ndarray | None:
    return None if arr.null_count == 0 else arr.is_null().to_numpy(zero_copy_only=False)


def arrow_hashes(arr: pa.Array | pa.ChunkedArray, keys: CellKeys) -> np.ndarray:
    """The canonical hash of every cell of an Arrow column (see the module docstring)."""
    import pyarrow.compute as pc

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    t = arr.type
    n = len(arr)
    if pa.types.is_null(t):
        return np.full(n, keys.missing, dtype=np.uint64)
    if pa.types.is_dictionary(t):
        values = arr.dictionary
        distinct = text_hashes(values, keys) if _is_text(values.type) else arrow_hashes(values, keys)
        codes = arr.indices.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
        return _with_missing(distinct[codes] if len(distinct) else np.zeros(n, np.uint64),
                             _valid_mask(arr), keys)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return arrow_hashes(pc.dictionary_encode(arr), keys) if n else np.zeros(0, np.uint64)
    if pa.types.is_integer(t) and arr.null_count == 0:  # the common case: no mask, no NaN, no -0.0
        return _mix(arr.to_numpy().astype(np.float64).view(np.uint64), keys.number)
    if pa.types.is_boolean(t) or pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        values = pc.cast(arr, pa.float64(), safe=False).fill_null(0.0).to_numpy(zero_copy_only=False)
        missing = np.isnan(values)
        if arr.null_count:
            missing |= arr.is_null().to_numpy(zero_copy_only=False)
        return _with_missing(_numbers(values, keys), missing, keys)
    if pa.types.is_timestamp(t) or pa.types.is_date(t):
        # microseconds: every engine's unit reaches them, and year 9999 still fits (nanoseconds end in 2262)
        tz = t.tz if pa.types.is_timestamp(t) else None
        us = pc.cast(pc.cast(arr, pa.timestamp("us", tz), safe=False), pa.int64()).fill_null(0)
        return _with_missing(_mix(us.to_numpy(zero_copy_only=False).view(np.uint64), keys.instant),
                             _valid_mask(arr), keys)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        items = arrow_hashes(arr.flatten(), keys)
        offsets = arr.offsets.to_numpy(zero_copy_only=False).astype(np.int64) - int(arr.offsets[0].as_py())
        return _with_missing(_item_sets(items, offsets, keys), _valid_mask(arr), keys)
    return arrow_hashes(pa.array([None if v is None else str(v) for v in arr.to_pylist()], pa.string()), keys)


LOOKUP_RANGE = 1 << 18
"""An integer column whose batch spans at most this many values (and fewer than its rows) is coded:
the hashes of its whole range are computed once and gathered."""
BLOCK_CODES = 1 << 18
"""The most codes a :class:`Block` of several columns spans: its table (2 MiB) stays in a core's cache,
where each row's gather from it is cheap."""


@dataclass(frozen=True)
class Coded:
    """A column as one hash per distinct value (``table``) and, per cell, the index of its value."""

    table: np.ndarray  # uint64
    codes: np.ndarray  # intp, 0 <= code < len(table)


def text_hashes(values: pa.Array, keys: CellKeys) -> np.ndarray:
    """The hash of each text of a dictionary (a null or a marker is missing)."""
    return _with_missing(_texts(values.fill_null(""), keys), _valid_mask(values), keys)


def text_table(values: Sequence[str | None], keys: CellKeys) -> np.ndarray:
    """A coded text column's table: the hash of each text of ``values`` (its distinct texts; None is
    missing), and last the hash of a missing cell (the code an engine gives a cell whose text is not
    in ``values``). A few printable ASCII texts are hashed in Python (:func:`_ascii_hashes`)."""
    if len(values) <= FEW_TEXTS and all(t is None or (t.isascii() and t.isprintable()) for t in values):
        hashes = _ascii_hashes(values, keys)
    else:
        hashes = text_hashes(pa.array(values, pa.string()), keys)
    return np.append(hashes, keys.missing)


FEW_TEXTS = 1024
"""Up to this many texts, all printable ASCII, are hashed in Python: SipHash costs about 16 µs a text
there, where pandas' (the one every ledger's fingerprints use) costs 0.18 s of import in a first open."""
_M64 = (1 << 64) - 1


def _ascii_hashes(values: Sequence[str | None], keys: CellKeys) -> np.ndarray:
    """:func:`text_hashes` of printable ASCII texts, without pyarrow's compute functions or pandas:
    there Arrow's white space is the space alone, its number pattern and parser are Python's, and
    pandas' text hash is SipHash-2-4 of the UTF-8 bytes under ``keys.text``, then its mix."""
    import re

    out = np.zeros(len(values), np.uint64)
    plain, numbers = [], []
    for i, text in enumerate(values):
        stripped = None if text is None else text.strip(" ")
        if stripped is None or stripped in MARKERS:
            out[i] = keys.missing
        elif re.match(_NUMBER, stripped):
            numbers.append((i, float(stripped)))
        else:
            plain.append((i, _siphash24(keys.text.encode(), stripped.encode())))
    for found, hashed in ((numbers, lambda v: _numbers(np.array(v, np.float64), keys)),
                          (plain, lambda v: _mix(np.array(v, np.uint64), np.uint64(0)))):
        if found:
            where, value = zip(*found, strict=True)
            out[list(where)] = hashed(value)
    return out


def _siphash24(key: bytes, data: bytes) -> int:
    """SipHash-2-4 of ``data`` under a 16-byte ``key`` (what pandas' ``hash_array`` computes per text)."""
    k0, k1 = int.from_bytes(key[:8], "little"), int.from_bytes(key[8:16], "little")
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D, k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]
    end = len(data) - len(data) % 8
    words = [int.from_bytes(data[i:i + 8], "little") for i in range(0, end, 8)]
    words.append(((len(data) & 0xFF) << 56) | int.from_bytes(data[end:], "little"))
    for m in words:
        v[3] ^= m
        _sip_rounds(v, 2)
        v[0] ^= m
    v[2] ^= 0xFF
    _sip_rounds(v, 4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def _sip_rounds(v: list[int], n: int) -> None:
    def rotl(x: int, b: int) -> int:
        return ((x << b) | (x >> (64 - b))) & _M64

    v0, v1, v2, v3 = v
    for _ in range(n):
        v0 = (v0 + v1) & _M64
        v1 = rotl(v1, 13) ^ v0
        v0 = rotl(v0, 32)
        v2 = (v2 + v3) & _M64
        v3 = rotl(v3, 16) ^ v2
        v0 = (v0 + v3) & _M64
        v3 = rotl(v3, 21) ^ v0
        v2 = (v2 + v1) & _M64
        v1 = rotl(v1, 17) ^ v2
        v2 = rotl(v2, 32)
    v[:] = [v0, v1, v2, v3]


def integer_table(low: int, high: int, keys: CellKeys) -> np.ndarray:
    """A coded integer column's table: the hash of each integer from ``low`` to ``high`` (code
    ``value - low``), and last the hash of a missing cell."""
    values = np.arange(low, high + 1, dtype=np.int64).astype(np.float64)
    return np.append(_numbers(values, keys), keys.missing)


def coded(arr: pa.Array | pa.ChunkedArray, keys: CellKeys) -> Coded | None:
    """``arr`` coded (text by its dictionary, integers of a small range by their offset from the
    smallest), or None when coding would not pay: the cells' hashes are :func:`arrow_hashes`'s."""
    import pyarrow.compute as pc

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    t = arr.type
    if pa.types.is_string(t) or pa.types.is_large_string(t) or \
            (pa.types.is_dictionary(t) and _is_text(t.value_type)):
        encoded = arr if pa.types.is_dictionary(t) else pc.dictionary_encode(arr)
        table, indices = text_hashes(encoded.dictionary, keys), encoded.indices
    elif pa.types.is_integer(t) and t != pa.uint64() and len(arr) > arr.null_count:
        bounds = pc.min_max(arr)
        low, high = bounds["min"].as_py(), bounds["max"].as_py()
        if high - low >= min(LOOKUP_RANGE, len(arr)):
            return None
        table = integer_table(low, high, keys)[:-1]
        indices = pc.subtract(pc.cast(arr, pa.int64()), low)
    else:
        return None
    if indices.null_count:
        table = np.append(table, keys.missing)
        indices = indices.fill_null(len(table) - 1)
    return Coded(table, np.asarray(indices.to_numpy(zero_copy_only=False), dtype=np.intp))


@dataclass(frozen=True, eq=False)
class Block:
    """Columns of few values each that an engine sends as ONE integer per row: for columns with tables
    ``t0, t1, …`` of ``n0, n1, …`` values (each cell's index into its column's table: ``c0, c1, …``),
    the code ``c0 + n0·(c1 + n1·(c2 + …))``. Why: the engine computes the code in its own parallel
    code, and the hashing pays one count and one gather per block instead of per column. ``table``
    is, for every code, its cells' hashes summed (the block's part of the row hash); a column's counts
    are the block's counts summed over the other columns' axes."""

    columns: tuple[int, ...]  # the dataset's column indices, in code order (c0 first)
    tables: tuple[np.ndarray, ...]  # uint64: each column's hashes by value
    table: np.ndarray  # uint64, one entry per code: the sum of its columns' hashes (mod 2**64)

    @classmethod
    def of(cls, columns: Iterable[int], tables: Iterable[np.ndarray]) -> Block:
        tables = tuple(tables)
        table = tables[-1]
        for t in reversed(tables[:-1]):  # uint64 arrays wrap modulo 2**64; the last axis is c0's
            table = np.add.outer(table, t).ravel()
        return cls(tuple(columns), tables, table)


def pack(tables: Mapping[int, np.ndarray], limit: int | None = None) -> list[Block]:
    """The coded columns ``tables`` (a column's index → its table) in few blocks of at most ``limit``
    (:data:`BLOCK_CODES`) codes each, the smallest columns first (a column larger than ``limit`` is a
    block of its own)."""
    limit = BLOCK_CODES if limit is None else limit
    groups: list[list[int]] = []
    size = limit + 1
    for j in sorted(tables, key=lambda j: (len(tables[j]), j)):
        if size * len(tables[j]) > limit:
            groups.append([])
            size = 1
        groups[-1].append(j)
        size *= len(tables[j])
    return [Block.of(group, (tables[j] for j in group)) for group in groups]


def _item_sets(items: np.ndarray, offsets: np.ndarray, keys: CellKeys) -> np.ndarray:
    """One hash per list from its items' hashes (their sum: a multiset, in any order)."""
    sums = np.zeros(len(offsets) - 1, dtype=np.uint64)
    nonempty = offsets[1:] > offsets[:-1]
    if items.size:
        sums[nonempty] = np.add.reduceat(items, offsets[:-1][nonempty])
    return _mix(sums, keys.items)


def pandas_hashes(col: pd.Series, keys: CellKeys) -> np.ndarray:
    """The canonical hash of every cell of a pandas column: the same as :func:`arrow_hashes` of the
    same values (the memory engine's frames and the other engines' Arrow batches agree)."""
    import pandas as pd

    dtype = col.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        distinct = _object_hashes(col.cat.categories.to_numpy(dtype=object), keys)
        codes = col.cat.codes.to_numpy()
        return np.where(codes < 0, keys.missing, distinct[codes] if len(distinct) else keys.missing)
    if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype):
        values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        missing = np.isnan(values)
        return _with_missing(_numbers(np.where(missing, 0.0, values), keys), missing, keys)
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return arrow_hashes(pa.array(col), keys)
    try:
        codes, uniques = pd.factorize(col, use_na_sentinel=True)
    except TypeError:  # unhashable cells (item sets as arrays or lists): one decision per cell
        return _object_hashes(col.to_numpy(dtype=object), keys)
    distinct = _object_hashes(np.asarray(uniques, dtype=object), keys)
    return np.where(codes < 0, keys.missing, distinct[codes] if len(distinct) else keys.missing)


def _object_hashes(values: np.ndarray, keys: CellKeys) -> np.ndarray:
    """Hashes of distinct Python values (a factorised object column): one decision per value."""
    import pandas as pd

    out = np.empty(len(values), dtype=np.uint64)
    texts: list[tuple[int, str]] = []
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and v != v) or v is pd.NaT or v is pd.NA:
            out[i] = keys.missing
        elif isinstance(v, bool | int | float | np.integer | np.floating | np.bool_):
            out[i] = _numbers(np.array([float(v)]), keys)[0]
        elif isinstance(v, tuple | list | set | frozenset | np.ndarray):
            items = _object_hashes(np.asarray(list(v), dtype=object), keys)
            out[i] = _item_sets(items, np.array([0, len(items)]), keys)[0]
        elif isinstance(v, pd.Timestamp):
            out[i] = arrow_hashes(pa.array([v]), keys)[0]
        else:
            texts.append((i, str(v)))
    if texts:
        where, text = zip(*texts, strict=True)
        out[list(where)] = _texts(pa.array(text, pa.string()), keys)
    return out


def _int64s(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """An Arrow integer array without nulls as int64 numpy, straight from its buffer: pyarrow's
    ``to_numpy`` imports pandas (0.18 s) the first time, which a first open of numbers never needs."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if arr.type != pa.int64():
        arr = arr.cast(pa.int64())
    return np.frombuffer(arr.buffers()[1], dtype=np.int64, count=len(arr), offset=arr.offset * 8)


def _settled(name: str, doc: str) -> property:
    """A :class:`ColumnSums` array read after its pending block counts are folded in."""

    def read(self: ColumnSums) -> np.ndarray:
        self._settle()
        return getattr(self, name)

    return property(read, doc=doc)


class ColumnSums:
    """The accumulator: ``update`` with batches (any order), ``merge`` partial states.

    Holds, per column, the two lane sums and the smallest and largest cell hash, and for the rows the
    :data:`SKETCH_ROWS` smallest distinct row hashes (a row's hash: its cells' hashes summed, so
    blind to the columns' names and order too); nothing else. A :class:`Block`'s counts are held
    as they are until the sums are read (``s1``, ``s2``, ``lo``, ``hi``) or merged: folding them
    into its columns' sums costs a pass over the block's table per column, once, not per batch.
    """

    def __init__(self, columns: int, key: bytes) -> None:
        self.keys = CellKeys.of(key)
        self.rows = 0
        self._s1 = np.zeros(columns, np.uint64)
        self._s2 = np.zeros(columns, np.uint64)
        self._lo = np.full(columns, np.iinfo(np.uint64).max, np.uint64)
        self._hi = np.zeros(columns, np.uint64)
        self._counts: dict[Block, np.ndarray] = {}  # each block's counts per code, not yet folded
        self.sketch = np.zeros(0, np.uint64)

    s1 = _settled("_s1", "Per column, the sum of its cells' hashes (mod 2**64).")
    s2 = _settled("_s2", "Per column, the sum of its cells' squared hashes (mod 2**64).")
    lo = _settled("_lo", "Per column, its smallest cell hash (2**64 - 1 while it holds none).")
    hi = _settled("_hi", "Per column, its largest cell hash (0 while it holds none).")

    def add(self, per_column: list[np.ndarray]) -> None:
        """Fold in one batch, given as each column's cell hashes (in the dataset's column order)."""
        if len(per_column) != len(self._s1):
            raise ValueError(f"a batch of {len(per_column)} columns for a dataset of {len(self._s1)}")
        if not per_column or len(per_column[0]) == 0:
            return
        self.rows += len(per_column[0])
        for j, h in enumerate(per_column):
            self._fold_cells(j, h)
        with np.errstate(over="ignore"):  # uint64 sums wrap modulo 2**64: the multiset hash
            rows = per_column[0].copy()
            for h in per_column[1:]:
                rows += h
        self._fold_sketch(_mix(rows, self.keys.row))

    def _fold_cells(self, j: int, h: np.ndarray) -> None:
        """Fold column ``j``'s cell hashes into its lane sums and extremes."""
        with np.errstate(over="ignore"):
            self._s1[j] += h.sum(dtype=np.uint64)
            self._s2[j] += (h * h).sum(dtype=np.uint64)
        self._lo[j] = min(self._lo[j], h.min())
        self._hi[j] = max(self._hi[j], h.max())

    def _count_block(self, block: Block, codes: np.ndarray) -> None:
        """Count a block's codes (folded into its columns' sums by :meth:`_settle`)."""
        counts = np.bincount(codes, minlength=len(block.table))
        if len(counts) > len(block.table):  # the engine's bounds did not hold (a file read as it changed)
            raise ValueError(f"a block code of {len(counts) - 1} for a block of {len(block.table)} codes")
        if (held := self._counts.get(block)) is None:
            self._counts[block] = counts
        else:
            held += counts

    def _settle(self) -> None:
        """Fold the blocks' counts into their columns' sums: per column, its values' counts are the
        block's counts summed over the other columns' axes."""
        for block, counts in self._counts.items():
            grid = counts.view(np.uint64).reshape([len(t) for t in reversed(block.tables)])
            last = len(block.tables) - 1
            for i, (j, table) in enumerate(zip(block.columns, block.tables, strict=True)):
                others = tuple(axis for axis in range(last + 1) if axis != last - i)
                self._fold_counts(j, table, grid.sum(axis=others, dtype=np.uint64) if others else grid)
        self._counts.clear()

    def _fold_counts(self, j: int, table: np.ndarray, counts: np.ndarray) -> None:
        """Fold into column ``j``'s sums each hash of ``table`` weighted by how often it occurs (one
        counting pass instead of a multiply and two sums per cell)."""
        present = table[counts > 0]
        if not len(present):
            return
        with np.errstate(over="ignore"):
            weighted = counts * table
            self._s1[j] += weighted.sum(dtype=np.uint64)
            self._s2[j] += (weighted * table).sum(dtype=np.uint64)
        self._lo[j] = min(self._lo[j], present.min())
        self._hi[j] = max(self._hi[j], present.max())

    def _fold_sketch(self, hashes: np.ndarray) -> None:
        """Keep the smallest distinct row hashes of the sketch and ``hashes`` together (bottom-k)."""
        if len(self.sketch) >= SKETCH_ROWS:
            hashes = hashes[hashes < self.sketch[-1]]
            if not len(hashes):
                return
        elif len(hashes) > 4 * SKETCH_ROWS:
            # a fresh sketch: sorting the whole slice would be the cost. The hashes up to the slice's
            # 1,025th smallest hold its smallest distinct ones whenever SKETCH_ROWS of them differ
            # (anything left out is larger); rows that repeat that much sort the whole slice
            edge = np.partition(hashes, 4 * SKETCH_ROWS)[4 * SKETCH_ROWS]
            smallest = hashes[hashes <= edge]
            if len(np.unique(smallest)) >= SKETCH_ROWS:
                hashes = smallest
        merged = np.sort(np.concatenate([self.sketch, hashes]))  # mostly a few hundred hashes, where
        first = np.ones(len(merged), bool)  # np.unique (it hashes them) costs five times this
        first[1:] = merged[1:] != merged[:-1]
        self.sketch = merged[first][:SKETCH_ROWS]

    def update_arrow(self, batch: pa.RecordBatch | pa.Table,
                     layout: Sequence[int | Block] | None = None) -> None:
        """Fold in an Arrow batch whose column ``i`` holds the dataset's column ``layout[i]``, or a
        :class:`Block`'s codes (no nulls) when ``layout[i]`` is one (without ``layout``: the dataset's
        columns in order). A column of few distinct values (text, small-range integers) is *coded*
        over the whole batch (:func:`coded`): its distinct values are hashed once and each cell costs
        a gather, as a block's. The rest is hashed in slices of :data:`CHUNK_ROWS` rows, so each
        column's dozen numpy passes run over data that stays in the processor's cache."""
        parts = range(batch.num_columns) if layout is None else layout
        self._check_layout(batch.num_columns, parts)
        n = batch.num_rows
        if n == 0:
            return
        gathers: list[tuple[np.ndarray, np.ndarray]] = []  # (table, codes): a block's or a coded column's
        plain: list[tuple[int, pa.Array]] = []
        for part, arr in zip(parts, batch.columns, strict=True):
            if isinstance(part, Block):
                if arr.null_count:
                    raise ValueError("a block's codes hold a null")
                codes = _int64s(arr)
                self._count_block(part, codes)
                gathers.append((part.table, codes))
            elif (column := coded(arr, self.keys)) is not None:
                self._fold_counts(part, column.table, np.bincount(
                    column.codes, minlength=len(column.table)).view(np.uint64))
                gathers.append((column.table, column.codes))
            else:
                plain.append((part, arr))
        self.rows += n
        with np.errstate(over="ignore"):  # the row hashes wrap modulo 2**64 too
            for start in range(0, n, CHUNK_ROWS):
                rows = np.zeros(min(CHUNK_ROWS, n - start), np.uint64)
                for table, codes in gathers:
                    rows += table.take(codes[start:start + CHUNK_ROWS])
                for j, arr in plain:
                    h = arrow_hashes(arr.slice(start, CHUNK_ROWS), self.keys)
                    self._fold_cells(j, h)
                    rows += h
                self._fold_sketch(_mix(rows, self.keys.row, out=rows))

    def _check_layout(self, width: int, parts: Sequence[int | Block]) -> None:
        """Refuse a batch that does not hold each of the dataset's columns exactly once."""
        if width != len(parts):
            raise ValueError(f"a batch of {width} columns for a layout of {len(parts)}")
        held = sorted(j for part in parts for j in (part.columns if isinstance(part, Block) else (part,)))
        if held != list(range(len(self._s1))):
            raise ValueError(f"a batch of {len(held)} columns for a dataset of {len(self._s1)} "
                             f"(columns {held})")

    def update_frame(self, frame: pd.DataFrame) -> None:
        self.add([pandas_hashes(frame.iloc[:, j], self.keys) for j in range(frame.shape[1])])

    def merge(self, other: ColumnSums) -> None:
        """Fold in a state computed elsewhere (another batch, thread, partition or process)."""
        self.merge_arrays(other.rows, other.s1, other.s2, other.lo, other.hi, other.sketch)

    def merge_arrays(self, rows: int, s1: np.ndarray, s2: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                     sketch: np.ndarray) -> None:
        """Fold in a partial state given as its row count, per-column uint64 arrays and row sketch."""
        self._fold_sketch(np.asarray(sketch, np.uint64))
        self.rows += int(rows)
        self._s1 += s1  # arrays of uint64 wrap modulo 2**64 without a warning
        self._s2 += s2
        self._lo = np.minimum(self._lo, lo)
        self._hi = np.maximum(self._hi, hi)


@dataclass(frozen=True)
class ColumnPrint:
    """One column's private digest, and whether it can tell datasets apart (holds two values or more)."""

    digest: str
    informative: bool


@dataclass(frozen=True)
class RowsFingerprint:
    """The private identity of some rows: their columns' digests (in the dataset's column order)."""

    columns: tuple[ColumnPrint, ...]
    content: str  # the identity: a digest of the sorted column digests (what the ledger looks up)
    rows: int = 0
    sketch: tuple[int, ...] = ()  # the smallest distinct row hashes (see ColumnSums), ascending

    @classmethod
    def from_sums(cls, key: bytes, sums: ColumnSums) -> RowsFingerprint:
        prints = []
        for j in range(len(sums.s1)):
            h = hashlib.sha256()
            for part in (key, VERSION, str(sums.rows).encode(), int(sums.s1[j]).to_bytes(8, "little"),
                         int(sums.s2[j]).to_bytes(8, "little")):
                h.update(len(part).to_bytes(8, "little"))
                h.update(part)
            informative = sums.rows > 0 and bool(sums.lo[j] != sums.hi[j])
            prints.append(ColumnPrint(h.hexdigest(), informative))
        digests = "\x1e".join(sorted(p.digest for p in prints)).encode()
        return cls(tuple(prints), hmac.new(key, b"rows:" + digests, hashlib.sha256).hexdigest(), sums.rows,
                   tuple(int(v) for v in sums.sketch))

    def to_json(self) -> dict[str, Any]:
        return {"columns": [[p.digest, p.informative] for p in self.columns], "content": self.content,
                "rows": self.rows, "sketch": list(self.sketch)}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> RowsFingerprint:
        return cls(tuple(ColumnPrint(str(d), bool(i)) for d, i in doc["columns"]), str(doc["content"]),
                   int(doc["rows"]), tuple(int(v) for v in doc["sketch"]))


def shared_rows(a: tuple[int, tuple[int, ...]], b: tuple[int, tuple[int, ...]]) -> float | None:
    """The estimated share of the smaller of two row sets (each ``(rows, sketch)``) that is in the
    other, from their sketches alone; None when the sketches cannot tell (too few rows sampled, or
    rows that are mostly repeats of each other: few columns of few values, where unrelated datasets
    share most of their distinct rows by construction).

    Below the smaller of the two sketches' largest hashes (where a sketch is full), each sketch holds
    *every* distinct row hash of its set, so the overlap there is an unbiased sample of the overlap.
    """
    if _mostly_repeats(*a) or _mostly_repeats(*b):
        return None
    edge = min(s[-1] if len(s) >= SKETCH_ROWS else _TOP for _, s in (a, b))
    left, right = {v for v in a[1] if v <= edge}, {v for v in b[1] if v <= edge}
    if min(len(left), len(right)) < RELIABLE:
        return None
    return len(left & right) / min(len(left), len(right))


_TOP = (1 << 64) - 1


def _mostly_repeats(rows: int, sketch: tuple[int, ...]) -> bool:
    """Whether fewer than half of the rows are distinct (estimated from the sketch's k-th value)."""
    if len(sketch) < SKETCH_ROWS:
        return len(sketch) < rows / 2
    distinct = (SKETCH_ROWS - 1) * (_TOP / sketch[-1])
    return distinct < rows / 2


def fingerprint_frames(frames: pd.DataFrame | Iterable[pd.DataFrame], key: bytes,
                       columns: int | None = None) -> RowsFingerprint:
    """The fingerprint of a pandas frame, or of batches of one (the memory engine's path)."""
    import pandas as pd

    if isinstance(frames, pd.DataFrame):
        columns, frames = frames.shape[1], [frames]
    sums: ColumnSums | None = None if columns is None else ColumnSums(columns, cell_key(key))
    for frame in frames:
        sums = sums or ColumnSums(frame.shape[1], cell_key(key))
        sums.update_frame(frame)
    if sums is None:
        raise ValueError("no batches and no columns: nothing to fingerprint")
    return RowsFingerprint.from_sums(key, sums)


PARTITION_SCHEMA = "rows long, col int, s1 long, s2 long, lo long, hi long"
"""The rows a partition sends to the driver (Spark DDL): its row count and, per column, its sums."""


def partition_sums(cells: bytes, columns: int) -> Callable[[Iterator[pa.RecordBatch]],
                                                           Iterator[pa.RecordBatch]]:
    """A function from one partition's Arrow batches to one small batch of its partial sums (for
    Spark's ``mapInArrow``): the rows never leave the executor, only ``columns`` rows of integers do,
    and the partition's row sketch as rows of column -1 (its hashes in ``s1``)."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        sums = ColumnSums(columns, cells)
        for batch in _gathered(batches, PARTITION_BATCH_ROWS):
            sums.update_arrow(batch)
        k = len(sums.sketch)
        zeros = np.zeros(k, np.uint64)
        lanes = ((sums.s1, sums.sketch), (sums.s2, zeros), (sums.lo, zeros), (sums.hi, zeros))
        signed = [np.concatenate([a, extra]).view(np.int64) for a, extra in lanes]
        yield pa.RecordBatch.from_arrays(
            [pa.array(np.full(columns + k, sums.rows, np.int64)),
             pa.array(np.concatenate([np.arange(columns), np.full(k, -1)]).astype(np.int32)),
             *map(pa.array, signed)], names=["rows", "col", "s1", "s2", "lo", "hi"])

    return run


PARTITION_BATCH_ROWS = 100_000
"""Spark hands a partition over in Arrow batches of 10,000 rows; hashed in batches of this many, a
batch's fixed costs (its few values hashed, its tables built) weigh a third less."""


def _gathered(batches: Iterable[pa.RecordBatch], rows: int) -> Iterator[pa.RecordBatch]:
    """``batches`` joined into batches of at least ``rows`` rows (the last one may be shorter)."""
    pending: list[pa.RecordBatch] = []
    held = 0
    for batch in batches:
        pending.append(batch)
        held += batch.num_rows
        if held >= rows:
            yield from pa.Table.from_batches(pending).combine_chunks().to_batches()
            pending, held = [], 0
    if pending:
        yield from pa.Table.from_batches(pending).combine_chunks().to_batches()


def merge_partitions(table: pa.Table, columns: int, cells: bytes) -> ColumnSums:
    """The driver's side of :func:`partition_sums`: every partition's sums folded into one state."""
    col = table.column("col").to_numpy().astype(np.int64)
    s1, s2 = np.zeros(columns, np.uint64), np.zeros(columns, np.uint64)
    lo, hi = np.full(columns, np.iinfo(np.uint64).max, np.uint64), np.zeros(columns, np.uint64)
    rows = table.column("rows").to_numpy()
    cells_of = (col >= 0) & (rows > 0)  # an empty partition's lo/hi are the neutral elements; skip it anyway
    for out, name, fold in ((s1, "s1", np.add), (s2, "s2", np.add), (lo, "lo", np.minimum),
                            (hi, "hi", np.maximum)):
        fold.at(out, col[cells_of], table.column(name).to_numpy().view(np.uint64)[cells_of])
    sums = ColumnSums(columns, cells)
    sketch = table.column("s1").to_numpy().view(np.uint64)[col == -1]
    sums.merge_arrays(int(rows[col == 0].sum()), s1, s2, lo, hi, sketch)
    return sums
