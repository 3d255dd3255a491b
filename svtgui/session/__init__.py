"""Persistence and reports: the privacy ledger, the headless run loop, session files, release reports.

Everything here is Qt-free except the report renderers (which need Qt's painter for PNG charts and
PDF), so the CLI and the GUI worker thread share the same write-ahead run loop.
"""
