"""The privacy engine: mechanisms, noise, accuracy bounds, exact budget arithmetic and the auditor.

The ledger that records budgets and charges is :mod:`svtgui.ledger`, one layer up.

Deliberately numpy-only: no Qt, no pandas (a test and an import-linter contract enforce it), so
the engine can be audited, tested and used headlessly on its own. Mechanisms never see a dataset,
only the true answer of one query at a time.
"""
