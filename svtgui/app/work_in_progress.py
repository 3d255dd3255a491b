"""Work in progress per dataset: the queue, the mechanism and its parameters come back with the rows.

Why: a curator who built a queue of a few hundred queries and tuned T for one dataset, then opened
another (or quit), lost it all without a word. Now the window keeps the set-up of the dataset it
leaves — when another dataset is opened and when it quits — and puts it back when the same rows
are opened again, in this session or a later one.

Kept as a session file (:mod:`svtgui.app.project_file`: queue, mechanism, parameters, no data, no
budget figures) in the per-user state folder (``$SVTGUI_STATE_DIR``/work, 0700), named by a one-way
hash of the rows' keyed fingerprint: the same rows re-saved or moved find their work again, and
the name says nothing about the data. The declared schema is not taken from it: the ledger keeps
that per rows already (:func:`svtgui.app.dataset_identity.recall_declared`).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from svtgui.app.dataset_identity import fingerprint_of
from svtgui.app.project_file import SUFFIX, Session, SessionError, load, save
from svtgui.app.workspace import Workspace
from svtgui.ledger import Ledger, LedgerError
from svtgui.ledger.anchor import state_dir


class WorkInProgress:
    """The set-up left on each dataset, kept in files of the user's state folder."""

    def __init__(self, folder: Path | None = None) -> None:
        self._folder = folder

    @property
    def folder(self) -> Path:
        return self._folder if self._folder is not None else state_dir() / "work"

    def _file(self, ledger: Ledger, workspace: Workspace) -> Path:
        content = fingerprint_of(ledger, workspace.dataset).content
        name = hashlib.sha256(b"svtgui work in progress\0" + content.encode()).hexdigest()[:32]
        return self.folder / f"{name}{SUFFIX}"

    def keep(self, workspace: Workspace, ledger: Ledger) -> str | None:
        """Keep the workspace's set-up for its dataset; why it could not be kept (one line), or None."""
        if workspace.dataset is None:
            return None
        try:
            target = self._file(ledger, workspace)
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(self.folder, 0o700)
            session, _invalid = Session.from_workspace(workspace)  # an unparsable entry is left out
            save(session, target)
        except (SessionError, LedgerError, OSError) as exc:
            return f"the queue and parameters of “{workspace.dataset.name}” could not be kept: {exc}"
        return None

    def restore(self, workspace: Workspace, ledger: Ledger) -> bool:
        """Put back the set-up last kept for the workspace's dataset; False when there is none (or it
        no longer reads: the set-up the dataset was opened with then stands)."""
        if workspace.dataset is None:
            return False
        try:
            path = self._file(ledger, workspace)
            if not path.exists():
                return False
            session = load(path)
            queries = session.query_objects()
        except (SessionError, LedgerError, OSError):
            return False
        workspace.set_queries(queries, from_data=session.domains_from_data)  # provenance comes back too
        session.apply_to(workspace)
        return True
