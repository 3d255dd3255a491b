"""Change events of the Qt-free models (workspace, run model): plain callbacks, no Qt.

Why not Qt signals: the models live in ``app`` (no Qt, usable from the CLI and from unit tests),
and every view follows a model by subscribing to it. A listener is told *what* changed (a set of
names) and reads the new values back from the model, so an event never carries stale data.
"""

from __future__ import annotations

from collections.abc import Callable

Listener = Callable[[frozenset[str]], None]


class Emitter:
    """A list of listeners told, in subscription order, which parts of a model changed."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        """Forget ``listener`` (a view that is closed); unknown listeners are ignored."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def emit(self, *what: str) -> None:
        if not what:
            return
        event = frozenset(what)
        for listener in list(self._listeners):
            listener(event)
