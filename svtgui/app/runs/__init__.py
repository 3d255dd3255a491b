"""How a run is carried out: the write-ahead run loop (``runner``), linear-query runs (``linear``),
and the spawned run process (``process``)."""
