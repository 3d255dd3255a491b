"""Workflow step 5: the Run page, the live table and chart, the gauges, and the link to the run process."""
