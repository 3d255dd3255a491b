"""``svtgui-cli audit ID --epsilon E [--seconds S] [--seed N] [--json]``: test a mechanism's claimed ε.

Exit codes: 0 no violation found in this audit, 1 violation (the witness inputs and event are printed),
2 bad input (unknown id, a bad number, an option the mechanism does not have). ``pmw`` and
``sparse_project`` are audited on neighbouring histograms; ``--neighbouring replace`` audits them
under replace-one neighbours instead of add/remove.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

from svtgui.cli.config import integer_option, seed_option
from svtgui.cli.errors import EXIT_FINDING, EXIT_OK, CliError
from svtgui.core.audit.defaults import DEFAULT_SECONDS

MAX_SECONDS = 7 * 24 * 3600  # the time budget is a duration: longer is a typo, and overflows the planner
MIN_ALPHA = 1e-300  # smaller significance levels underflow the statistics' logarithms


class TerminalProgress:
    """The audit's progress on one rewritten stderr line (a :class:`~svtgui.core.progress.ProgressState`).

    Only for a terminal: redirected stderr (logs, pipes, CI) gets no carriage-return noise. At most
    ten updates a second; never cancelled (Ctrl-C interrupts the command as usual).
    """

    def __init__(self, stream) -> None:
        self.stream = stream
        self.last = 0.0
        self.width = 0

    def set_progress(self, fraction: float | None, text: str = "") -> None:
        now = time.monotonic()
        if now - self.last < 0.1 and fraction != 1.0:
            return
        self.last = now
        line = f"{100 * (fraction or 0.0):5.1f}%  {text}"[:78]
        self.stream.write("\r" + line.ljust(self.width))
        self.width = len(line)
        if fraction == 1.0:
            self.stream.write("\r" + " " * self.width + "\r")
        self.stream.flush()

    def is_cancelled(self) -> bool:
        return False


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="statistically test a mechanism's claimed ε (exit 1 on a violation)",
                       description=__doc__.splitlines()[0].split(": ", 1)[1])
    p.add_argument("mechanism", metavar="ID", help="mechanism id (see `svtgui-cli mechanisms`)")
    p.add_argument("--epsilon", type=float, required=True, help="the claimed ε to test")
    p.add_argument("--seconds", type=float, default=DEFAULT_SECONDS,
                   help=f"time budget (default {DEFAULT_SECONDS:g})")
    p.add_argument("--seed", type=seed_option, default=None,
                   help="seed of the audit's simulations (reproducible)")
    p.add_argument("--alpha", type=float, default=0.01, help="significance level (default 0.01)")
    p.add_argument("--cutoff", type=integer_option, default=None, help="cutoff c to audit with (default 1)")
    p.add_argument("--neighbouring", choices=("add_remove", "replace"), default=None,
                   help="neighbouring datasets for pmw and sparse_project (default add_remove)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from svtgui.core import audit as auditor
    from svtgui.core import mechanisms

    try:
        entry = mechanisms.info(args.mechanism)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    for name in ("epsilon", "seconds"):
        value = getattr(args, name)
        if not math.isfinite(value) or value <= 0:
            raise CliError(f"--{name} must be a positive number, got {value!r}")
    if args.seconds > MAX_SECONDS:
        raise CliError(f"--seconds {args.seconds:g}: an audit runs for at most {MAX_SECONDS:,} s (a week)")
    if not MIN_ALPHA <= args.alpha < 1:
        raise CliError(f"--alpha must be in [{MIN_ALPHA:g}, 1), got {args.alpha!r} (1e-9 is already "
                       "far beyond any real need)")
    params = {}
    for name in ("cutoff", "neighbouring"):
        value = getattr(args, name)
        if value is not None:
            if name not in {p.name for p in entry.params}:
                raise CliError(f"{entry.id} has no {name} parameter")
            params[name] = value
    # the mechanism the audit builds, built first: a refused ε came after the "auditing …" line (two lines)
    mechanisms.create(entry.id, rng=mechanisms.seeded(0), allow_non_private=True,
                      **auditor.audit_params(entry.id, args.epsilon, params or None))
    if not args.json:
        print(f"auditing {entry.id} at claimed ε = {args.epsilon:g} for about {args.seconds:g} s …",
              file=sys.stderr, flush=True)
    progress = TerminalProgress(sys.stderr) if sys.stderr.isatty() and not args.json else None
    result = auditor.audit(entry.id, args.epsilon, seconds=args.seconds, seed=args.seed, alpha=args.alpha,
                           params=params or None, progress=progress)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        _print_text(result)
    return EXIT_FINDING if result.violation else EXIT_OK


def _print_text(r) -> None:
    print(r.summary())
    if r.violation:
        print(f"VIOLATION: the mechanism leaks more than ε = {r.epsilon:g}: with {r.confidence} "
              f"confidence its true ε is at least {r.epsilon_lcb:.3f}.")
    else:
        print("No violation found in this audit. This is not a proof of privacy: this search, with these "
              "runs, found no evidence against the claim.")
    print(f"witness inputs ({r.witness.name}):")
    for line in r.witness.describe():
        print(f"  {line}")
    print(f"event: {r.event}")
    print(f"  seen {r.counts[0]:,} times in {r.runs:,} runs on d1 and {r.counts[1]:,} times in "
          f"{r.runs_d2:,} runs on d2")
