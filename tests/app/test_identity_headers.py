"""Issue 21 §2: a dataset's identity does not depend on its column names, their case or order.

A hostile curator (or a careless one) renames a header, upper-cases them, reorders, drops a column
and renames another, adds a noise column, changes one cell, shuffles the rows or re-saves as Parquet:
the same rows must find the same budget without a question, and rows sharing enough of a known
dataset's columns must make the curator say same-or-different, whatever the file is called. Old
ledgers (schema 5, whose fingerprint included the names) keep their budgets.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from svtgui.app.dataset_identity import fingerprint_of, identify, recall_declared, register, remember_declared
from svtgui.cli import main
from svtgui.data import load_dataset
from svtgui.data.legacy_fingerprint import ContentFingerprint
from svtgui.data.queries import RangeCount
from svtgui.ledger import Ledger
from svtgui.ledger.migrations import MIGRATIONS


def people(n: int = 400, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(17, 90, n), "hours_per_week": rng.integers(1, 99, n),
                         "sex": rng.choice(["Female", "Male"], n),
                         "city": rng.choice(["Oslo", "Paris", "Rome"], n),
                         "income": rng.integers(0, 200_000, n)})


@pytest.fixture
def led(tmp_path):
    with Ledger.open(tmp_path / "ledger.sqlite") as ledger:
        yield ledger


def _save(frame: pd.DataFrame, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


def test_renamed_upper_cased_reordered_shuffled_or_parquet_headers_find_the_same_budget(tmp_path, led):
    f = people()
    known = register(led, load_dataset(_save(f, tmp_path / "adult.csv")), 2)
    variants = {
        "one header renamed": f.rename(columns={"hours_per_week": "hours-per-week"}),
        "headers upper-cased": f.rename(columns=str.upper),
        "columns reordered": f[["income", "city", "sex", "hours_per_week", "age"]],
        "rows shuffled": f.sample(frac=1.0, random_state=7),
        "all renamed, as Parquet": f.set_axis([f"c{i}" for i in range(5)], axis=1),
    }
    for what, frame in variants.items():
        suffix = ".parquet" if "Parquet" in what else ".csv"
        ds = load_dataset(_save(frame, tmp_path / what.replace(" ", "_") / f"other{suffix}"))
        assert identify(led, ds).record == known, what
    assert led.datasets() == [known]


@pytest.mark.parametrize("change", ["drop one, rename another", "noise column added", "one cell changed",
                                    "one column changed entirely", "one row removed", "one row added",
                                    "a 20 % sample", "a cell changed in every column"])
def test_rows_sharing_most_columns_need_the_curators_word_whatever_their_name(tmp_path, led, change):
    f = people()
    known = register(led, load_dataset(_save(f, tmp_path / "adult.csv")), 2)
    g = f.copy()
    if change == "drop one, rename another":
        g = g.drop(columns=["city"]).rename(columns={"income": "INCOME_USD"})
    elif change == "noise column added":
        g["noise"] = np.random.default_rng(1).normal(size=len(g))
    elif change == "one cell changed":
        g.loc[17, "age"] += 1
    elif change == "one column changed entirely":
        g["income"] = np.random.default_rng(2).integers(0, 200_000, len(g))
    elif change == "one row removed":  # a neighbouring dataset: every column's multiset changes
        g = g.drop(index=5)
    elif change == "one row added":
        g = pd.concat([g, people(1, seed=99)], ignore_index=True)
    elif change == "a 20 % sample":
        g = g.sample(frac=0.2, random_state=4)
    else:  # no column keeps its values, but most rows are untouched
        for i, column in enumerate(g.columns):
            g.loc[i, column] = -1 - i if pd.api.types.is_numeric_dtype(g[column]) else "changed"
    identity = identify(led, load_dataset(_save(g, tmp_path / "v2" / "unrelated_name.csv")))
    assert identity.needs_decision and identity.lookalikes == (known,)


def test_unrelated_rows_and_trivial_shared_columns_ask_nothing(tmp_path, led):
    """Columns of one value (a constant, all missing) say nothing about who the rows are: they never
    make two datasets look alike, nor does a single shared column among many."""
    f = people()
    f["country"], f["note"] = "NO", None
    register(led, load_dataset(_save(f, tmp_path / "adult.csv")), 2)
    other = people(seed=11)
    other["country"], other["note"] = "NO", None
    other["sex"] = f["sex"]  # one informative column in common: not enough on its own
    identity = identify(led, load_dataset(_save(other, tmp_path / "b" / "survey.csv")))
    assert identity.is_new and not identity.needs_decision


def test_rows_of_few_values_are_not_compared_row_by_row(tmp_path, led):
    """Two unrelated files of a few columns of few values share most of their distinct rows by
    construction (there are only so many): that must not make them look alike."""
    rng = np.random.default_rng(5)
    small = pd.DataFrame({"sex": rng.choice(["F", "M"], 3000), "band": rng.integers(0, 5, 3000)})
    register(led, load_dataset(_save(small, tmp_path / "a.csv")), 2)
    other = pd.DataFrame({"s": rng.choice(["F", "M"], 2000), "b": rng.integers(0, 5, 2000)})
    assert not identify(led, load_dataset(_save(other, tmp_path / "b" / "other.csv"))).needs_decision


def test_a_one_column_file_with_a_known_column_needs_the_curators_word(tmp_path, led):
    f = people()
    known = register(led, load_dataset(_save(f, tmp_path / "adult.csv")), 2)
    only = f[["income"]].rename(columns={"income": "salary"})
    assert identify(led, load_dataset(_save(only, tmp_path / "b" / "salaries.csv"))).lookalikes == (known,)


def _queries(path: Path) -> Path:
    path.write_text(json.dumps({"format": "svtgui-queries", "version": 1,
                                "queries": [RangeCount("age", 30, 60).to_json()]}))
    return path


def test_the_cli_keeps_charging_the_spent_budget_after_a_header_rename(tmp_path, capsys):
    """The reported bug: after the budget was spent, the file with one header renamed ran afresh."""
    f = people()
    ledger, queries = tmp_path / "l.sqlite", _queries(tmp_path / "q.json")
    args = ["--queries", str(queries), "--mechanism", "sparse", "--epsilon", "1", "--threshold", "1000",
            "--cutoff", "1", "--ledger", str(ledger)]
    assert main(["run", "--data", str(_save(f, tmp_path / "adult.csv")), *args, "--budget-epsilon", "1"]) == 0
    renamed = _save(f.rename(columns={"hours_per_week": "hours-per-week", "age": "AGE"}),
                    tmp_path / "b" / "adult.csv")
    capsys.readouterr()
    assert main(["run", "--data", str(renamed), *args[:1], str(_renamed_queries(tmp_path)), *args[2:],
                 "--budget-epsilon", "1"]) != 0
    assert "does not fit what remains" in capsys.readouterr().err
    dropped = _save(f.drop(columns=["city"]).rename(columns={"income": "inc"}), tmp_path / "c" / "x.csv")
    assert main(["run", "--data", str(dropped), *args, "--budget-epsilon", "1"]) == 2
    err = capsys.readouterr().err
    assert "--same-dataset-as" in err and "--new-dataset" in err and len(err.strip().splitlines()) == 1
    with Ledger.open(ledger) as led:
        (record,) = led.datasets()
        assert len(led.runs()) == 1 and led.budget(record.dataset_id).spent_epsilon == 1


def _renamed_queries(tmp_path: Path) -> Path:
    path = tmp_path / "q_upper.json"
    path.write_text(json.dumps({"format": "svtgui-queries", "version": 1,
                                "queries": [RangeCount("AGE", 30, 60).to_json()]}))
    return path


def _v5_ledger(path: Path, rows: pd.DataFrame, name: str) -> tuple[str, str]:
    """A ledger as SVT Studio wrote it at schema 5: a dataset keyed by the old row fingerprint (which
    included the column names), a spent run and a remembered schema. Returns (dataset id, old content)."""
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("BEGIN")
    for v in range(1, 6):
        MIGRATIONS[v](c)
    c.execute("PRAGMA application_id = 1398166599")
    c.execute("PRAGMA user_version = 5")
    key = bytes(c.execute("SELECT key FROM ledger_key").fetchone()[0])
    fp = ContentFingerprint(key, list(rows.columns))
    fp.update(rows)
    old = fp.hexdigest()
    at = "2026-01-01T00:00:00+00:00"
    c.execute("INSERT INTO datasets VALUES ('ds-00000000000000aa', ?, '3', '0', 'add_remove', '{}', ?, ?)",
              (name, at, json.dumps(list(rows.columns))))
    c.execute("INSERT INTO budget_events (dataset_id, kind, epsilon, delta, note, at) VALUES "
              "('ds-00000000000000aa', 'register', '3', '0', 'registered', ?)", (at,))
    c.execute("INSERT INTO dataset_contents VALUES (?, 'ds-00000000000000aa', 'registered', 'registered', "
              "?)", (old, at))
    c.execute("INSERT INTO runs (dataset_id, mechanism_id, params_json, epsilon, delta, noise, "
              "noise_description, status, started_at, software_version, owner_host, owner_pid) VALUES "
              "('ds-00000000000000aa', 'sparse', '{}', '2', '0', 'secure', 'secure', 'finished', ?, '0.2', "
              "'h', 1)", (at,))
    c.execute("COMMIT")
    c.close()
    return "ds-00000000000000aa", old


def test_a_schema_5_ledger_keeps_its_budgets_and_schemas(tmp_path):
    f = people()
    data = _save(f, tmp_path / "adult.csv")
    ledger = tmp_path / "old.sqlite"
    dataset_id, old = _v5_ledger(ledger, load_dataset(data).frame, "adult")
    with Ledger.open(ledger) as led:
        schema = load_dataset(data).schema
        led.remember_schema(old, schema.to_json())  # what 0.2 remembered, under the old content
        ds = load_dataset(data)
        record = identify(led, ds)
        assert record.record.dataset_id == dataset_id  # found by the old fingerprint, recorded anew
        assert led.budget(dataset_id).spent_epsilon == 2
        assert recall_declared(led, load_dataset(data)) == schema  # the remembered schema follows
        assert not led.unmatched_old_contents()
    with Ledger.open(ledger) as led:  # from now on the new identity finds it, headers renamed or not
        renamed = load_dataset(_save(f.rename(columns=str.upper), tmp_path / "b" / "ADULT.csv"))
        assert identify(led, renamed).record.dataset_id == dataset_id
        assert led.datasets()[0].dataset_id == dataset_id and len(led.datasets()) == 1


def test_the_fingerprint_is_paid_once_per_file_and_again_when_it_changes(tmp_path, led):
    f = people()
    data = _save(f, tmp_path / "adult.csv")
    passes = []

    def counted(path: Path):
        ds = load_dataset(path)
        compute = ds._column_sums
        ds._column_sums = lambda *a: (passes.append(path), compute(*a))[1]
        return ds

    first = fingerprint_of(led, counted(data))
    assert fingerprint_of(led, counted(data)) == first and len(passes) == 1  # re-open: from the cache
    stat = data.stat()
    g = f.copy()
    g.loc[0, "age"] = 18 if g.loc[0, "age"] != 18 else 19  # same size, same modification time restored
    _save(g, data)
    assert data.stat().st_size == stat.st_size
    os.utime(data, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    changed = fingerprint_of(led, counted(data))
    assert len(passes) == 2 and changed != first  # the change time and the sampled block saw it
    assert fingerprint_of(led, counted(data)) == changed and len(passes) == 2


def test_the_fingerprint_cache_holds_no_plain_fingerprint_or_path(tmp_path, led):
    data = _save(people(), tmp_path / "adult.csv")
    ds = load_dataset(data)
    fingerprint_of(led, ds)
    dump = b"".join(p.read_bytes() for p in tmp_path.glob("ledger.sqlite*"))
    assert str(data).encode() not in dump and str(data.stat().st_ino).encode() + b":" not in dump


def test_identity_by_columns_and_the_cache_on_either_ledger(tmp_path, ledger_location):
    """The same rules on a team's server ledger (issue 26) as on a file."""
    f = people()
    with Ledger.open(ledger_location) as led:
        known = register(led, load_dataset(_save(f, tmp_path / "adult.csv")), 2)
        renamed = load_dataset(_save(f.rename(columns=str.upper), tmp_path / "b" / "x.csv"))
        assert identify(led, renamed).record == known
        dropped = load_dataset(_save(f.drop(columns=["city"]), tmp_path / "c" / "y.csv"))
        assert identify(led, dropped).lookalikes == (known,)
        state = load_dataset(tmp_path / "adult.csv").read_state()
        assert led.cached_fingerprint(state.file_id, state.check)["rows"]["content"] == \
            fingerprint_of(led, load_dataset(tmp_path / "adult.csv")).content


def test_a_version_1_server_ledger_gets_the_identity_tables(server_url, tmp_path):
    import re

    import psycopg

    from svtgui.ledger import postgres_schema

    with Ledger.open(server_url):
        pass
    later = [m.group(1) for sql in postgres_schema.upgrade_statements(1, "any")
             if (m := re.match(r"\s*CREATE TABLE (\w+)", sql))]
    assert {"content_columns", "fingerprint_cache", "content_rows"} <= set(later)
    with psycopg.connect(server_url, autocommit=True) as admin:  # as the first server ledgers were made
        admin.execute(f"DROP TABLE {', '.join(later)} CASCADE")
        admin.execute("UPDATE svtgui_meta SET version = 1")
    with Ledger.open(server_url) as led:
        known = register(led, load_dataset(_save(people(), tmp_path / "adult.csv")), 2)
        assert led.sharing_columns([]) == {} and led.datasets() == [known]
    with psycopg.connect(server_url, autocommit=True) as admin:
        version = admin.execute("SELECT version FROM svtgui_meta").fetchone()[0]
        assert version == postgres_schema.SCHEMA_VERSION
        assert admin.execute("SELECT count(*) FROM content_columns").fetchone()[0] == 5
        assert admin.execute("SELECT count(*) FROM content_rows").fetchone()[0] == 1


def test_the_declared_schema_follows_renamed_and_reordered_headers(tmp_path, led):
    f = people()
    ds = load_dataset(_save(f, tmp_path / "adult.csv"))
    remember_declared(led, ds, ds.schema.with_bounds("age", 17, 90).with_bounds("income", 0, 200_000))
    moved = f.rename(columns={"age": "AGE"})[["income", "AGE", "sex", "city", "hours_per_week"]]
    renamed = load_dataset(_save(moved, tmp_path / "b" / "x.csv"))
    recalled = recall_declared(led, renamed)
    assert recalled.names == renamed.schema.names == ["income", "AGE", "sex", "city", "hours_per_week"]
    assert (recalled.column("AGE").lower, recalled.column("AGE").upper) == (17, 90)
    assert (recalled.column("income").lower, recalled.column("income").upper) == (0, 200_000)
    assert recalled.column("sex").lower is None
