"""Generate the bundled sample data (fixed seed): ``python resources/make_samples.py``.

Writes into ``resources/samples/``:

* ``census.csv``: 30,000 synthetic census-like rows (no real person in it). Age, sex, education,
  marital status, occupation (5% missing, written ``?`` like the UCI Adult file), hours per week,
  capital gain and loss (mostly 0, heavy-tailed when not), income class.
* ``census.schema.json``: the curator's declaration: kinds, **public bounds** (from the
  definition of each field, not from the generated values), categories, neighbouring relation.
* ``census.queries.json``: the default query list: 2,000 random age-range counts (the notebook's
  range-query screening on a sample the app can open at once).
* ``census.clip_sweep.queries.json``: the clip-bound sweep on capital_gain (bs = range(1, 100000, 25)).
* ``baskets.dat``: 5,000 synthetic shopping baskets over 400 items with Zipf-like popularity, in the
  FIMI format (one basket per line, item ids separated by spaces).

The data is synthetic, so seeded numpy randomness is fine here (this is not release noise).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SAMPLES = HERE / "samples"
SEED = 20240917
N_ROWS = 30_000
N_BASKETS = 5_000
N_ITEMS = 400

EDUCATION = [
    ("Preschool", 1),
    ("1st-4th", 2),
    ("5th-6th", 3),
    ("7th-8th", 4),
    ("9th", 5),
    ("10th", 6),
    ("11th", 7),
    ("12th", 8),
    ("HS-grad", 9),
    ("Some-college", 10),
    ("Assoc-voc", 11),
    ("Assoc-acdm", 12),
    ("Bachelors", 13),
    ("Masters", 14),
    ("Prof-school", 15),
    ("Doctorate", 16),
]
EDU_WEIGHTS = [0.2, 0.5, 1.0, 2.0, 1.6, 2.9, 3.6, 1.3, 32.3, 22.4, 4.2, 3.3, 16.4, 5.3, 1.8, 1.2]
MARITAL = ["Never-married", "Married-civ-spouse", "Divorced", "Separated", "Widowed"]
OCCUPATION = [
    "Adm-clerical",
    "Craft-repair",
    "Exec-managerial",
    "Farming-fishing",
    "Handlers-cleaners",
    "Machine-op-inspct",
    "Other-service",
    "Prof-specialty",
    "Protective-serv",
    "Sales",
    "Tech-support",
    "Transport-moving",
]
BOUNDS = {
    "age": (17, 90),
    "education_num": (1, 16),
    "hours_per_week": (1, 99),
    "capital_gain": (0, 99999),
    "capital_loss": (0, 4356),
}


def census(rng: np.random.Generator) -> pd.DataFrame:
    n = N_ROWS
    age = np.clip(np.round(17 + rng.gamma(3.0, 7.2, n)), 17, 90).astype(int)
    sex = np.where(rng.random(n) < 0.67, "Male", "Female")
    edu_idx = rng.choice(len(EDUCATION), size=n, p=np.array(EDU_WEIGHTS) / sum(EDU_WEIGHTS))
    education = np.array([e for e, _ in EDUCATION])[edu_idx]
    edu_num = np.array([k for _, k in EDUCATION])[edu_idx]
    married_p = np.clip((age - 20) / 30, 0.02, 0.6)
    marital = np.where(
        rng.random(n) < married_p,
        "Married-civ-spouse",
        rng.choice(["Never-married", "Divorced", "Separated", "Widowed"], size=n, p=[0.6, 0.25, 0.05, 0.1]),
    )
    marital = np.where(age < 22, "Never-married", marital)
    occupation = rng.choice(OCCUPATION, size=n).astype(object)
    occupation[rng.random(n) < 0.05] = "?"
    hours = np.clip(np.round(rng.normal(40 + 2 * (sex == "Male"), 11, n)), 1, 99).astype(int)
    has_gain = rng.random(n) < 0.08 + 0.01 * (edu_num - 9).clip(0)
    gain = np.where(has_gain, np.round(np.exp(rng.normal(8.3, 1.1, n))), 0)
    gain = np.where(has_gain & (rng.random(n) < 0.06), 99999, gain)  # the top-coded tail, as in the census
    gain = np.clip(gain, *BOUNDS["capital_gain"]).astype(int)
    loss = np.where(~has_gain & (rng.random(n) < 0.045), np.round(rng.normal(1900, 350, n)), 0)
    loss = np.clip(loss, *BOUNDS["capital_loss"]).astype(int)
    score = -7.5 + 0.35 * edu_num + 0.04 * (age - 17) + 0.03 * hours + 0.8 * (marital == "Married-civ-spouse")
    score += 0.4 * (sex == "Male") + 2.0 * (gain > 5000)
    income = np.where(rng.random(n) < 1 / (1 + np.exp(-score)), ">50K", "<=50K")
    return pd.DataFrame(
        {
            "age": age,
            "sex": sex,
            "education": education,
            "education_num": edu_num,
            "marital_status": marital,
            "occupation": occupation,
            "hours_per_week": hours,
            "capital_gain": gain,
            "capital_loss": loss,
            "income": income,
        }
    )


def census_schema() -> dict:
    cols = [
        {"name": "age", "kind": "numeric"},
        {"name": "sex", "kind": "categorical", "categories": ["Female", "Male"]},
        {"name": "education", "kind": "categorical", "categories": [e for e, _ in EDUCATION]},
        {"name": "education_num", "kind": "numeric"},
        {"name": "marital_status", "kind": "categorical", "categories": MARITAL},
        {"name": "occupation", "kind": "categorical", "categories": OCCUPATION},
        {"name": "hours_per_week", "kind": "numeric"},
        {"name": "capital_gain", "kind": "numeric"},
        {"name": "capital_loss", "kind": "numeric"},
        {"name": "income", "kind": "categorical", "categories": ["<=50K", ">50K"]},
    ]
    for c in cols:
        if c["name"] in BOUNDS:
            c["lower"], c["upper"] = BOUNDS[c["name"]]
    return {"format": "svtgui-schema", "version": 1, "neighbouring": "add_remove", "columns": cols}


def baskets(rng: np.random.Generator) -> list[list[int]]:
    popularity = 1.0 / np.arange(1, N_ITEMS + 1) ** 0.9
    popularity /= popularity.sum()
    sizes = 1 + rng.geometric(1 / 8, size=N_BASKETS)
    out = []
    for size in sizes:
        items = rng.choice(N_ITEMS, size=min(int(size), 60), replace=False, p=popularity)
        out.append(sorted(items.tolist()))
    return out


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(HERE.parent))
    import argparse

    from svtgui.data import generators
    from svtgui.data.queries import queries_to_json

    ap = argparse.ArgumentParser(description="Generate the bundled sample data (fixed seed).")
    ap.add_argument("--out", type=Path, default=SAMPLES, help="output folder (default: resources/samples)")
    out = ap.parse_args(argv).out
    rng = np.random.default_rng(SEED)
    out.mkdir(parents=True, exist_ok=True)
    census(rng).to_csv(out / "census.csv", index=False, lineterminator="\n")
    (out / "census.schema.json").write_text(json.dumps(census_schema(), indent=2) + "\n", encoding="utf-8")
    ranges = generators.random_ranges("age", 17, 91, 2000, seed=SEED)
    (out / "census.queries.json").write_text(json.dumps(queries_to_json(ranges)) + "\n", encoding="utf-8")
    sweep = generators.clip_bound_sweep("capital_gain", 1, 100_000, 25)
    (out / "census.clip_sweep.queries.json").write_text(
        json.dumps(queries_to_json(sweep)) + "\n", encoding="utf-8"
    )
    lines = [" ".join(map(str, b)) for b in baskets(rng)]
    (out / "baskets.dat").write_text("\n".join(lines) + "\n", encoding="ascii")
    print(f"wrote {out}: census.csv ({N_ROWS} rows), baskets.dat ({N_BASKETS} baskets), schema, query sets")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
