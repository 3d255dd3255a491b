"""The query queue as one evented list, owned by the workspace and edited in place.

Why: the queue used to be kept twice — a widget's list synced to the workspace behind a flag — and
every edit copied the whole list and checked every query again: appending one query to a queue of
200,000 held the window for a third of a second. Here there is one list. Its edits (insert,
remove, move, reset) change it in place and tell listeners what changed, before and after, as
napari's evented lists do, so a Qt model can wrap it (``beginInsertRows`` … ``endInsertRows``)
without a copy. Its facts (Δ, integer, monotonic, the first query that does not fit) are kept as a
running tally (:class:`~svtgui.app.plan.QueueTally`): an append checks the new queries only; any
other edit, or another schema, starts the tally again when the facts are next asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from svtgui.app.plan import QueueFacts, QueueTally
from svtgui.data.queries import Query
from svtgui.data.schema import Schema

INSERTED, REMOVED, MOVED, RESET = "inserted", "removed", "moved", "reset"


@dataclass(frozen=True)
class QueueChange:
    """One edit of the queue. ``start``/``count``: the inserted positions (INSERTED);
    ``rows``: the positions removed or moved, as they were before (REMOVED, MOVED)."""

    kind: str
    start: int = 0
    count: int = 0
    rows: tuple[int, ...] = ()


QueueListener = Callable[[QueueChange], None]


class QueryQueue(Sequence[Query]):
    """The planned queries in the order they will be asked; edits are announced before and after."""

    def __init__(self, queries: Iterable[Query] = ()) -> None:
        self._items: list[Query] = list(queries)
        self._before: list[QueueListener] = []
        self._after: list[QueueListener] = []
        self._tally: QueueTally | None = None

    # -- reading ----------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, i: int) -> Query: ...

    @overload
    def __getitem__(self, i: slice) -> list[Query]: ...

    def __getitem__(self, i: int | slice) -> Query | list[Query]:
        return self._items[i]

    def __iter__(self) -> Iterator[Query]:
        return iter(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, QueryQueue):
            return self._items == other._items
        return isinstance(other, list | tuple) and self._items == list(other)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def facts(self, schema: Schema | None) -> QueueFacts:
        """Δ, integer, monotonic and the first misfit under ``schema`` (incremental after appends)."""
        if self._tally is None or self._tally.schema is not schema:
            self._tally = QueueTally(schema)
            self._tally.add(self._items)
        return self._tally.facts()

    # -- listening --------------------------------------------------------------------------------
    def subscribe(self, after: QueueListener, before: QueueListener | None = None) -> None:
        """``after(change)`` once an edit is made; ``before(change)`` just before (Qt models begin there)."""
        self._after.append(after)
        if before is not None:
            self._before.append(before)

    def _edit(self, change: QueueChange, apply: Callable[[], None]) -> None:
        for listener in list(self._before):
            listener(change)
        apply()
        for listener in list(self._after):
            listener(change)

    # -- editing ----------------------------------------------------------------------------------
    def insert(self, index: int, queries: Iterable[Query]) -> None:
        new = list(queries)
        if not new:
            return
        index = max(0, min(len(self._items), index))
        appended = index == len(self._items)

        def apply() -> None:
            self._items[index:index] = new
            if appended and self._tally is not None:
                self._tally.add(new)  # the new queries alone
            else:
                self._tally = None

        self._edit(QueueChange(INSERTED, index, len(new)), apply)

    def append(self, queries: Iterable[Query]) -> None:
        self.insert(len(self._items), queries)

    def remove(self, rows: Iterable[int]) -> None:
        drop = sorted({r for r in rows if 0 <= r < len(self._items)})
        if not drop:
            return
        gone = set(drop)

        def apply() -> None:
            self._items = [q for i, q in enumerate(self._items) if i not in gone]
            self._tally = None

        self._edit(QueueChange(REMOVED, rows=tuple(drop)), apply)

    def move(self, rows: Iterable[int], target: int) -> None:
        """Move the queries at ``rows`` (kept in their order) before position ``target``."""
        moving_rows = sorted({r for r in rows if 0 <= r < len(self._items)})
        if not moving_rows:
            return
        gone = set(moving_rows)

        def apply() -> None:
            moving = [self._items[r] for r in moving_rows]
            keep = [q for i, q in enumerate(self._items) if i not in gone]
            at = max(0, min(len(keep), target - sum(1 for r in moving_rows if r < target)))
            self._items = keep[:at] + moving + keep[at:]
            self._tally = None

        self._edit(QueueChange(MOVED, rows=tuple(moving_rows)), apply)

    def reset(self, queries: Iterable[Query]) -> None:
        """Replace the whole queue (a sample's, a session's, an import, Undo)."""
        new = list(queries)

        def apply() -> None:
            self._items = new
            self._tally = None

        self._edit(QueueChange(RESET, 0, len(new)), apply)
