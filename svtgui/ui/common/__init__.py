"""Shared by every step: the application object's icon and theme, settings, and background jobs."""
