"""Subcommands of ``svtgui-cli``; each module exposes ``register(subparsers)``."""
