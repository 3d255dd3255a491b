"""The auditor as a task (:mod:`svtgui.app.tasks`): the teaching pages must never freeze.

The audit runs on the task's thread and sees the task's state as its progress: it reports what it
is searching, and a cancel ends its search and final test early. Nothing here touches a widget; a
:class:`~svtgui.ui.common.background.Background` hands progress and the result to the cards.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from svtgui.app.tasks import TaskState
from svtgui.core.audit import AuditResult, audit


def audit_task(state: TaskState, mechanism_id: str, epsilon: float, kwargs: Mapping[str, Any]) -> AuditResult:
    """One :func:`svtgui.core.audit.audit` call; ``kwargs`` are its sizes and seed (tests fix them)."""
    return audit(mechanism_id, epsilon, progress=state, **kwargs)


def failure_text(exc: BaseException) -> str:
    """A failed audit as the one line its card shows."""
    return f"{type(exc).__name__}: {exc}"
