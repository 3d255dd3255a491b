"""After a run: the History page and exporting release reports."""
