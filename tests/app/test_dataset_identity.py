"""Which dataset are these rows? Budgets follow the rows; nothing public is a function of the data.

Real files on disk throughout: the same rows re-saved in other line endings, quoting, encodings,
orders and formats find the same budget; other rows with the same name, or columns holding a
known dataset's values, need the curator's word; no report format, session file, CLI output or
ledger listing carries a hash of the
data; seeded runs say they are not private and record no seed.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import json
import random
from pathlib import Path

import pandas as pd
import pytest

from svtgui.app import dataset_identity
from svtgui.app.dataset_identity import DatasetDecisionNeeded, bind, identify, register
from svtgui.app.project_file import Session, save
from svtgui.cli import main
from svtgui.data import load_dataset
from svtgui.data.queries import RangeCount
from svtgui.ledger import SEEDED_TEXT, Ledger

CITIES = ["Zürich", "Paris, France", 'The "Hague"', "Oslo"]


def _rows(n: int = 300, seed: int = 5) -> list[tuple[int, str, str]]:
    rng = random.Random(seed)
    return [(rng.randint(17, 90), rng.choice(["F", "M"]), rng.choice(CITIES)) for _ in range(n)]


def _csv(path: Path, rows, *, sep=",", newline="\n", quoting=csv.QUOTE_MINIMAL, encoding="utf-8",
         trailing="") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding=encoding, newline="") as f:
        w = csv.writer(f, delimiter=sep, lineterminator=newline, quoting=quoting)
        w.writerow(["age", "sex", "city"])
        w.writerows(rows)
        f.write(trailing)
    return path


def _variants(folder: Path, rows) -> dict[str, Path]:
    """The same rows saved in eight ways (every file named people.*, as a curator re-saving would)."""
    out = {}
    for name, kw in {"lf": {}, "crlf_blank_line": {"newline": "\r\n", "trailing": "\r\n"},
                     "all_quoted": {"quoting": csv.QUOTE_ALL}, "utf8_bom": {"encoding": "utf-8-sig"},
                     "tsv": {"sep": "\t"}}.items():
        sub = folder / name
        sub.mkdir()
        out[name] = _csv(sub / ("people.tsv" if name == "tsv" else "people.csv"), rows, **kw)
    shuffled = list(rows)
    random.Random(1).shuffle(shuffled)
    (folder / "shuffled").mkdir()
    out["shuffled"] = _csv(folder / "shuffled" / "people.csv", shuffled)
    frame = pd.DataFrame(rows, columns=["age", "sex", "city"])
    (folder / "parquet").mkdir()
    frame.to_parquet(out.setdefault("parquet", folder / "parquet" / "people.parquet"))
    (folder / "jsonl").mkdir()
    frame.to_json(out.setdefault("jsonl", folder / "jsonl" / "people.jsonl"), orient="records", lines=True,
                  force_ascii=False)
    return out


@pytest.fixture
def led(tmp_path):
    with Ledger.open(tmp_path / "ledger.sqlite") as ledger:
        yield ledger


def test_the_same_rows_in_any_file_find_the_same_budget(tmp_path, led):
    files = _variants(tmp_path, _rows())
    assert len({p.read_bytes() for p in files.values()}) == len(files)  # eight different files
    record = register(led, load_dataset(files["lf"]), 3)
    for name, path in files.items():
        ds = load_dataset(path)
        assert identify(led, ds).record == record, name
        assert ds.dataset_id == record.dataset_id
    assert len(led.datasets()) == 1


def test_the_cli_charges_one_budget_for_re_saved_rows(tmp_path, led, capsys):
    """The 0.1 bug: the same rows with CRLF or one extra newline got a fresh budget each time."""
    files = _variants(tmp_path, _rows())
    queries = tmp_path / "q.json"
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1,
                                   "queries": [RangeCount("age", 30, 60).to_json()] * 3}))
    ledger = str(led.path)
    led.close()
    for name in ("lf", "crlf_blank_line", "all_quoted"):
        assert main(["run", "--data", str(files[name]), "--queries", str(queries), "--mechanism", "sparse",
                     "--epsilon", "1", "--threshold", "1000", "--cutoff", "1", "--budget-epsilon", "2",
                     "--ledger", ledger]) in (0, 3), capsys.readouterr().err
    err = capsys.readouterr().err
    with Ledger.open(ledger) as again:
        (record,) = again.datasets()
        assert again.budget(record.dataset_id).spent_epsilon == 2  # the third run was refused
    assert "spent ε 2 of 2" in err


def _changed(path: Path) -> Path:
    """The same file name and columns, one row different."""
    rows = _rows()
    rows[0] = (rows[0][0] + 1, rows[0][1], rows[0][2])
    return _csv(path, rows)


def test_lookalike_rows_need_the_curators_word(tmp_path, led):
    first = register(led, load_dataset(_csv(tmp_path / "people.csv", _rows())), 3)
    changed = load_dataset(_changed(tmp_path / "v2" / "people.csv"))
    identity = identify(led, changed)
    assert identity.needs_decision and identity.lookalikes == (first,)
    with pytest.raises(DatasetDecisionNeeded, match=first.dataset_id):
        register(led, changed, 3)
    assert led.datasets() == [first]  # nothing registered
    # bound to the known dataset: the changed rows share its budget from now on
    assert bind(led, changed, first.dataset_id) == first
    assert identify(led, load_dataset(tmp_path / "v2" / "people.csv")).record == first
    # or, confirmed different: a budget of its own
    other = load_dataset(_csv(tmp_path / "v3" / "people.csv", _rows(seed=9)))
    second = register(led, other, 1, different=True)
    assert second.dataset_id != first.dataset_id and len(led.datasets()) == 2


def test_the_same_rows_with_a_column_added_or_dropped_need_the_curators_word(tmp_path, led):
    # a row-number column added to the same rows (pandas' index_label), or a column dropped: the same
    # people, so neither may get a fresh budget silently, whatever the file is called (issue 21 §2)

    first = register(led, load_dataset(_csv(tmp_path / "people.csv", _rows())), 3)
    frame = pd.read_csv(tmp_path / "people.csv")
    (tmp_path / "v2").mkdir()
    frame.to_csv(tmp_path / "v2" / "people.csv", index_label="row")
    frame.drop(columns=["city"]).to_csv(tmp_path / "people.tsv", sep="\t", index=False)
    for path in (tmp_path / "v2" / "people.csv", tmp_path / "people.tsv"):
        identity = identify(led, load_dataset(path))
        assert identity.needs_decision and identity.lookalikes == (first,), path
    frame.to_csv(tmp_path / "others.csv", index_label="row")
    assert identify(led, load_dataset(tmp_path / "others.csv")).lookalikes == (first,)
    other_people = _csv(tmp_path / "others" / "unrelated.csv", _rows(seed=9))
    assert not identify(led, load_dataset(other_people)).needs_decision


def _cli(data: Path, ledger: Path, queries: Path, *extra: str) -> int:
    return main(["run", "--data", str(data), "--queries", str(queries), "--mechanism", "sparse",
                 "--epsilon", "0.5", "--threshold", "1000", "--cutoff", "1", "--ledger", str(ledger), *extra])


def test_cli_options_say_which_dataset(tmp_path, capsys):
    ledger, queries = tmp_path / "ledger.sqlite", tmp_path / "q.json"
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1,
                                   "queries": [RangeCount("age", 30, 60).to_json()]}))
    assert _cli(_csv(tmp_path / "people.csv", _rows()), ledger, queries, "--budget-epsilon", "2") == 0
    with Ledger.open(ledger) as led:
        (known,) = led.datasets()
    changed = _changed(tmp_path / "v2" / "people.csv")
    capsys.readouterr()
    assert _cli(changed, ledger, queries, "--budget-epsilon", "2") == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert f"--same-dataset-as {known.dataset_id}" in err and "--new-dataset" in err
    assert _cli(changed, ledger, queries) == 2  # without a budget: still the question, not "give a budget"
    assert f"--same-dataset-as {known.dataset_id}" in capsys.readouterr().err
    with Ledger.open(ledger) as led:
        assert len(led.datasets()) == 1 and len(led.runs()) == 1  # nothing registered or charged
    assert _cli(changed, ledger, queries, "--same-dataset-as", known.dataset_id) == 0
    with Ledger.open(ledger) as led:
        assert len(led.datasets()) == 1 and led.budget(known.dataset_id).spent_epsilon == 1
    other = _csv(tmp_path / "v3" / "people.csv", _rows(seed=9))
    assert _cli(other, ledger, queries, "--new-dataset", "--budget-epsilon", "1") == 0
    with pytest.raises(SystemExit) as contradiction:  # argparse: the two options exclude each other
        _cli(other, ledger, queries, "--new-dataset", "--same-dataset-as", known.dataset_id)
    assert contradiction.value.code == 2
    with Ledger.open(ledger) as led:
        assert len(led.datasets()) == 2


def _hashes_of(data: Path, led: Ledger, ds) -> set[str]:
    """Every deterministic function of the data a public file might carry, in the usual spellings."""
    raw = data.read_bytes()
    digests = [hashlib.new(name, raw) for name in ("sha256", "sha1", "md5", "sha512", "blake2b")]
    out = set()
    for d in digests:
        out |= {d.hexdigest(), d.hexdigest().upper(), base64.b64encode(d.digest()).decode()}
    fp = ds.content_fingerprint(led.content_key())
    out |= {fp, fp.upper()}
    return out | {h[:12] for h in list(out)}  # short prefixes (0.1 printed the first 12 digits)


def test_no_public_output_carries_a_hash_of_the_data(tmp_path, capsys):
    data = _csv(tmp_path / "people.csv", _rows())
    ledger, queries = tmp_path / "ledger.sqlite", tmp_path / "q.json"
    sweep = [RangeCount("age", lo, lo + 20).to_json() for lo in range(17, 70)]
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1, "queries": sweep}))
    reports = [tmp_path / f"release{s}" for s in (".html", ".pdf", ".json", ".csv")]
    args = [a for r in reports for a in ("--report", str(r))]
    assert _cli(data, ledger, queries, "--budget-epsilon", "2", *args) == 0
    outputs = capsys.readouterr()
    assert main(["ledger", "--ledger", str(ledger)]) == 0
    assert main(["ledger", "--ledger", str(ledger), "--json"]) == 0
    listing = capsys.readouterr().out
    with Ledger.open(ledger) as led:
        ds = load_dataset(data)
        record = identify(led, ds).record
        session = save(Session.from_state(ds, [RangeCount("age", 20, 30)], "sparse",
                                          {"epsilon": 0.5, "threshold": 10.0, "cutoff": 1}), tmp_path / "s")
        needles = _hashes_of(data, led, ds)
    texts = {p.name: p.read_bytes().decode("latin-1") for p in [*reports, session]}
    texts |= {"stdout": outputs.out, "stderr": outputs.err, "ledger listing": listing}
    pdf_text = __import__("subprocess").run(["pdftotext", str(reports[1]), "-"], capture_output=True,
                                            text=True).stdout
    texts["pdf text"] = pdf_text
    for where, text in texts.items():
        found = [n for n in needles if n in text]
        assert not found, f"{where} carries {found[0]}"
    assert record.dataset_id in texts["release.json"] and record.dataset_id in texts["s.svtsession"]
    assert record.dataset_id in pdf_text.replace("\n", "")


def test_seeded_runs_record_no_seed_and_say_they_are_not_private(tmp_path, capsys, census_copy):
    data = census_copy  # seeded noise runs only on public rows (a bundled sample, by content)
    ledger, queries = tmp_path / "ledger.sqlite", tmp_path / "q.json"
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1,
                                   "queries": [RangeCount("age", 30, 60).to_json()]}))
    report = tmp_path / "r.json"
    assert _cli(data, ledger, queries, "--budget-epsilon", "2", "--test-seed", "918273645501",
                "--report", str(report)) == 0
    assert "NOT differentially private" in capsys.readouterr().err
    doc = json.loads(report.read_text())
    assert not doc["guarantee"]["differentially_private"]
    assert doc["guarantee"]["sentence"].startswith("This release is NOT differentially private")
    # 12 digits: a 6-digit seed could appear by chance (~1e-5 per run) as the microseconds of one of
    # the many timestamps or inside a random hex id or key; 12 digits cannot (≈ 1e-13)
    assert "918273645501" not in report.read_text() and "seed" not in json.dumps(doc["parameters"])
    assert b"918273645501" not in b"".join(p.read_bytes() for p in tmp_path.glob("ledger.sqlite*"))
    with Ledger.open(ledger) as led:
        (run,) = led.runs()
        assert not run.secure and run.noise_description == SEEDED_TEXT
    # the old option is gone: a seed needs an option whose name says it is for tests
    with pytest.raises(SystemExit) as old_option:
        _cli(data, ledger, queries, "--seed", "7")
    assert old_option.value.code == 2
    config = tmp_path / "run.toml"
    config.write_text('seed = 7\n')
    assert main(["run", "--config", str(config), "--data", str(data), "--queries", str(queries),
                 "--mechanism", "sparse", "--epsilon", "0.5", "--threshold", "1", "--cutoff", "1",
                 "--ledger", str(ledger)]) == 2
    with Ledger.open(ledger) as led:
        assert len(led.runs()) == 1


def test_the_ledger_refuses_to_store_a_seed(led):
    dataset_id = led.register_dataset("a" * 64, "x", 1)[0].dataset_id
    run = led.start_run(dataset_id, "sparse", {}, "0.5", secure=False, noise_description="seeded (seed 7)")
    assert run.noise_description == SEEDED_TEXT
    import sqlite3

    conn = sqlite3.connect(led.path)
    with pytest.raises(sqlite3.IntegrityError, match="without its seed"):
        conn.execute("INSERT INTO runs (dataset_id, mechanism_id, params_json, epsilon, delta, noise, "
                     "noise_description, status, started_at, software_version, owner_host, owner_pid) "
                     "VALUES (?, 's', '{}', '0', '0', 'seeded', 'seed 7', 'running', 't', 'v', 'h', 1)",
                     (dataset_id,))


def test_identity_is_computed_once_per_key(tmp_path, led):
    ds = load_dataset(_csv(tmp_path / "people.csv", _rows()))
    calls = []
    batches = ds.record_batches
    ds.record_batches = lambda: (calls.append(1), batches())[1]
    identify(led, ds)
    identify(led, ds)
    assert calls == [1]
    assert dataset_identity.identify(led, ds).is_new


def test_a_screenshot_run_never_touches_the_users_ledger(tmp_path):
    """`svtgui --screenshot OUT.png --run` charged ε = 1 to the real ledger on every call in 0.1."""
    import os
    import subprocess
    import sys

    user_ledger = tmp_path / "user" / "ledger.sqlite"
    with Ledger.open(user_ledger) as led:
        census = load_dataset(__import__("svtgui.assets", fromlist=["asset"]).asset("samples/census.csv"))
        known = register(led, census, 5)
    before = b"".join(p.read_bytes() for p in sorted(user_ledger.parent.iterdir()))
    out = tmp_path / "shot.png"
    env = {**os.environ, "SVTGUI_LEDGER": str(user_ledger), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-m", "svtgui", "--screenshot", str(out), "--run"], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 10_000  # a real picture of a finished run
    assert b"".join(p.read_bytes() for p in sorted(user_ledger.parent.iterdir())) == before
    with Ledger.open(user_ledger) as led:
        assert led.runs() == [] and led.budget(known.dataset_id).spent_epsilon == 0


def test_a_seeded_release_file_holds_no_seed(tmp_path, capsys, census_copy):
    """Exports too: a SparseProject release built with --test-seed names no seed in its header."""
    from svtgui.core.mechanisms.sparse_project import ProjectionRelease

    data = census_copy  # seeded noise runs only on public rows (a bundled sample, by content)
    out = tmp_path / "release.npz"
    assert main(["sparse-project", "build", "--data", str(data), "--columns", "sex=Female,Male",
                 "age@17,40,91",
                 "--epsilon", "1", "--out", str(out), "--ledger", str(tmp_path / "l.sqlite"),
                 "--budget-epsilon", "2", "--budget-delta", "1e-5", "--test-seed", "918273645501"]) == 0, \
        capsys.readouterr().err
    header = json.dumps(ProjectionRelease.load(out).header)
    assert "918273645501" not in header and "NOT differentially private" in header
    assert "918273645501" not in capsys.readouterr().out
