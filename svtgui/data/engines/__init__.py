"""Table engines: who evaluates a dataset's queries — ``memory`` (pandas), ``duckdb`` (files read in
place, larger than memory) or ``spark`` (a cluster, or Spark in local mode).

>>> from svtgui.data.engines import open_dataset, choose_engine
>>> choose_engine("census.parquet")                        # doctest: +SKIP
EngineChoice(engine='duckdb', reason='Parquet file with 100,000,000 rows (> 10,000,000): …')
>>> ds = open_dataset("census.parquet")                    # doctest: +SKIP
>>> from svtgui.data.evaluate import evaluate; evaluate(ds, queries)   # doctest: +SKIP

Every engine answers every query kind through the same ``evaluate`` (engines other than memory
through ``plan.Planner``); see ``docs/scale.md`` for the plans and for pointing at a cluster.
"""

from svtgui.data.engines.base import ENGINES, EngineError, EngineRefused
from svtgui.data.engines.dataset import TableDataset
from svtgui.data.engines.open import DEFAULT_MASTER, EngineChoice, choose_engine, open_dataset

__all__ = ["DEFAULT_MASTER", "ENGINES", "EngineChoice", "EngineError", "EngineRefused", "TableDataset",
           "choose_engine", "open_dataset"]
