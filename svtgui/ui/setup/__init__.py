"""Workflow steps 1–4: open a dataset, declare its schema, choose the mechanism, queue the queries."""
