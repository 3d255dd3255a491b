"""Runs, Qt-free: the run model of the open dataset (``model``: its ledger standing ``dataset_budget``,
states ``state``, status line ``status``, confirmation facts ``confirmation``, released rows
``results``), the write-ahead run loop (``runner``), linear-query runs (``linear``), the spawned run
process (``process``) and the handle on it (``worker``)."""
