"""Bad inputs found by red-teaming the CLI (issue 13), one test per class, each through ``main()``.

For every case: exit code 2 (the documented code for bad input), exactly one line on stderr that
names the option, file or field at fault, no traceback, and nothing charged to the ledger. Each
class was a traceback (exit 70), a multi-line usage dump, an unclear message ("Invalid literal for
Fraction", "math domain error"), a hang (a FIFO), or a silent misread before its fix.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from pathlib import Path

import pytest

from svtgui.cli import main

SCHEMA = {"format": "svtgui-schema", "version": 1, "neighbouring": "add_remove",
          "columns": [{"name": "x", "kind": "numeric", "lower": 0, "upper": 100},
                      {"name": "colour", "kind": "categorical", "categories": ["blue", "red"]}]}


@pytest.fixture(scope="module")
def known(tmp_path_factory):
    """A toy dataset, its schema and queries, and a ledger in which the dataset is already known
    (several classes, e.g. a bad --budget-epsilon, failed only for known datasets)."""
    d = tmp_path_factory.mktemp("bad")
    data = d / "toy.csv"
    data.write_text("x,colour\n" + "".join(f"{i % 100},{'red' if i % 3 else 'blue'}\n" for i in range(300)))
    schema = d / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    queries = d / "q.json"
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1, "queries": [
        {"kind": "range", "column": "x", "low": 0, "high": 10}]}))
    ledger = d / "known.sqlite"
    assert main(["run", *_inputs(data, queries, schema), "--ledger", str(ledger),
                 "--budget-epsilon", "10"]) == 0
    return {"dir": d, "data": data, "schema": schema, "queries": queries, "ledger": ledger}


def _inputs(data: Path, queries: Path, schema: Path) -> list[str]:
    return ["--data", str(data), "--queries", str(queries), "--schema", str(schema), "--mechanism", "sparse",
            "--epsilon", "0.1", "--threshold", "5", "--cutoff", "1"]


def _runs(ledger: Path) -> int:
    with sqlite3.connect(ledger) as c:
        return c.execute("SELECT count(*) FROM runs").fetchone()[0]


def _refused(argv: list[str], capsys, *names: str, ledger: Path | None = None) -> str:
    """Run ``argv``; it must exit 2 with one line naming every one of ``names``, charging nothing."""
    before = _runs(ledger) if ledger is not None else 0
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusals exit from parse_args
        code = exc.code
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip() and ": note: " not in ln]
    assert code == 2, err
    assert len(lines) == 1 and "Traceback" not in err, err
    for name in names:
        assert name in lines[0], lines[0]
    if ledger is not None:
        assert _runs(ledger) == before
    return lines[0]


def _run(known: dict, *extra: str) -> list[str]:
    inputs = _inputs(known["data"], known["queries"], known["schema"])
    return ["run", *inputs, "--ledger", str(known["ledger"]), *extra]


# -- usage errors: one line, not argparse's usage block ------------------------------------------------

@pytest.mark.parametrize("argv, name", [
    (["run", "--epsilon", "abc"], "--epsilon"),
    (["run", "--cutoff", "1.5"], "--cutoff"),
    (["report", "abc", "--out", "r.json"], "RUN_ID"),
    (["report", str(10**30), "--out", "r.json"], "RUN_ID"),  # overflowed SQLite's INTEGER: exit 70
    (["queries", "generate", "range-sweep", "--column", "x"], "--start"),
    (["no-such-command"], "no-such-command"),
    (["run", "--test-seed", "-1"], "--test-seed"),  # numpy's 'expected non-negative integer' named nothing
    (["audit", "sparse", "--epsilon", "1", "--seed", "-1"], "--seed"),
])
def test_a_usage_error_is_one_line(argv, name, capsys):
    _refused(argv, capsys, name)


# -- budget totals: checked where they are typed, named by option -----------------------------------

@pytest.mark.parametrize("option, value", [
    ("--budget-epsilon", "abc"), ("--budget-epsilon", ""), ("--budget-epsilon", "inf"),
    ("--budget-epsilon", "nan"), ("--budget-epsilon", "1e999"), ("--budget-epsilon", "0"),
    ("--budget-epsilon", "-1"),
    ("--budget-delta", "1"), ("--budget-delta", "-0.5"), ("--budget-delta", "abc"),
])
def test_a_bad_budget_total_is_named_even_for_a_known_dataset(known, option, value, capsys):
    # for a known dataset the total is ignored, but 'abc' still crashed as "Invalid literal for Fraction"
    line = _refused(_run(known, option, value), capsys, option, ledger=known["ledger"])
    assert "Fraction" not in line


@pytest.mark.parametrize("value", ["1e999", "abc", "0"])
def test_ledger_raise_names_a_bad_total(known, value, capsys):
    # 1e999 was an OverflowError (exit 70) when the ledger printed the new total
    argv = ["ledger", "raise", "ds-", "--total-epsilon", value, "--note", "n",
            "--ledger", str(known["ledger"])]
    _refused(argv, capsys, "--total-epsilon")


@pytest.mark.parametrize("line, key", [
    ('budget_epsilon = "abc"', "budget_epsilon"), ('budget_epsilon = "inf"', "budget_epsilon"),
    ("budget_delta = 2", "budget_delta"), ("spark_conf = 5", "spark_conf"),
    ('spark_timeout = "x"', "spark_timeout"), ("spark_timeout = [1]", "spark_timeout"),
    ("engine = 5", "engine"),
    ('ledger = ""', "'ledger'"),  # resolved to the config's folder: "this is a folder"
    ("test_seed = -5", "test_seed"),
])
def test_a_config_key_of_the_wrong_type_is_named(known, line, key, capsys):
    config = known["dir"] / f"c{abs(hash(line))}.toml"
    config.write_text(f'data = "toy.csv"\nqueries = "q.json"\nschema = "schema.json"\nmechanism = "sparse"\n'
                      f"epsilon = 0.1\nthreshold = 5.0\ncutoff = 1\n{line}\n")
    _refused(["run", "--config", str(config), "--ledger", str(known["ledger"])], capsys, key,
             ledger=known["ledger"])


@pytest.mark.parametrize("param", [
    "sensitivity=true",  # taken as Δ = 1
    'sensitivity="2"',
    "sensitivity=" + "9" * 5000,  # Python's int-string limit
    "sensitivity=" + "[" * 50_000 + "]" * 50_000,  # RecursionError
])
def test_a_parameter_of_the_wrong_json_type_is_named(known, param, capsys):
    _refused(_run(known, "--param", param), capsys, "--param sensitivity", ledger=known["ledger"])


def test_a_catalogue_parameter_in_the_config_is_type_checked(known, capsys):
    config = known["dir"] / "params.toml"
    config.write_text("[params]\nsensitivity = true\n")
    line = _refused(_run(known, "--config", str(config)), capsys,
                    f"--config {config}: key 'params.sensitivity'", ledger=known["ledger"])
    assert "--param" not in line  # it was reported as "--param sensitivity: …" (issue 22 §5)


@pytest.mark.parametrize("value", ["abc", True, [1]])
def test_a_session_parameter_of_the_wrong_json_type_names_its_field(known, value, capsys):
    session = known["dir"] / "typed.svtsession"
    session.write_text(json.dumps({
        "format": "svtgui-session", "version": 3,
        "dataset": {"path": str(known["data"]), "schema": SCHEMA},
        "mechanism": {"id": "sparse", "params": {"epsilon": value, "threshold": 5, "cutoff": 1}}}))
    _refused(["run", "--session", str(session), "--ledger", str(known["ledger"])], capsys,
             "typed.svtsession", "'mechanism.params.epsilon'", ledger=known["ledger"])


# -- queries: a null bound is refused before the charge ---------------------------------------------

@pytest.mark.parametrize("where", [
    {"column": "x", "op": "between", "value": [None, 5]},
    {"column": "x", "op": "between", "value": [1, None]},
    {"column": "x", "op": "<", "value": None},
    {"column": "x", "op": ">=", "value": None},
])
def test_an_ordering_condition_with_a_null_bound_is_refused_before_the_charge(known, where, capsys):
    # it passed validation, was charged, then crashed comparing floats with None (exit 70)
    q = known["dir"] / "null.json"
    q.write_text(json.dumps([{"kind": "count", "where": where}]))
    _refused(["run", *_inputs(known["data"], q, known["schema"]), "--ledger", str(known["ledger"])], capsys,
             "null", "'value'", ledger=known["ledger"])


@pytest.mark.parametrize("which", ["queries", "schema", "session"])
def test_a_version_of_true_is_not_version_1(known, which, capsys):
    # JSON's true is Python's 1: each file of "version": true was read as version 1
    if which == "session":
        doc = {"format": "svtgui-session", "version": True}
    else:
        doc = json.loads(known[which].read_text()) | {"version": True}
    path = known["dir"] / f"v-true-{which}.json"
    path.write_text(json.dumps(doc))
    argv = ["run", "--session", str(path)] if which == "session" else _run(known, f"--{which}", str(path))
    _refused(argv, capsys, "version", ledger=known["ledger"])


@pytest.mark.parametrize("category", [None, {}, [], True, float("nan")])
def test_a_declared_category_must_be_a_text_or_a_number(known, category, capsys):
    # str(None) declared the category "None" (and str({}) the category "{}")
    colour = {**SCHEMA["columns"][1], "categories": ["red", category]}
    bad = {**SCHEMA, "columns": [SCHEMA["columns"][0], colour]}
    schema = known["dir"] / "bad-category.json"
    schema.write_text(json.dumps(bad))
    _refused(_run(known, "--schema", str(schema)), capsys, "'colour'", "category", ledger=known["ledger"])


# -- numbers that overflow or underflow ---------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["queries", "generate", "range-sweep", "--column", "x", "--start", "0", "--stop", "10",
     "--width", "5e-324", "--out", "-"],
    ["queries", "generate", "range-sweep", "--column", "x", "--start", "0", "--stop", "10", "--width", "1",
     "--step", "5e-324", "--out", "-"],
    ["queries", "generate", "clip-bound-sweep", "--column", "x", "--start", "1e-300", "--stop", "1e300",
     "--step", "1.0000001", "--geometric", "--out", "-"],
])
def test_a_sweep_whose_step_underflows_the_range_is_refused_by_its_size(argv, capsys):
    _refused(argv, capsys, "5,000,000")  # was OverflowError: cannot convert float infinity to integer


def test_a_query_list_written_to_a_fifo_nobody_reads_is_refused_not_awaited(tmp_path, capsys):
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)  # write_text() blocked in open() until a reader came: forever
    argv = ["queries", "generate", "range-sweep", "--column", "x", "--start", "0", "--stop", "5",
            "--width", "1"]
    _refused([*argv, "--out", str(fifo)], capsys, "--out", "named pipe")


@pytest.mark.parametrize("extra, name", [
    (["--seconds", "1e308"], "--seconds"),  # OverflowError in the planner
    (["--alpha", "5e-324"], "--alpha"),  # "math domain error"
    (["--epsilon", "1e308"], "--epsilon"),  # refused after the "auditing sparse …" line: two lines
    (["--epsilon", "5e-324"], "--epsilon"),
])
def test_audit_options_past_their_range_are_named(extra, name, capsys):
    _refused(["audit", "sparse", "--epsilon", "1", *extra], capsys, name)


# -- files: the item domain, FIMI ids, Excel headers, declared kinds --------------------------------------

@pytest.fixture
def baskets(tmp_path):
    data = tmp_path / "baskets.dat"
    data.write_text("1 2 3\n2 3\n3 4\n" * 20)
    return data


def _items_argv(data: Path, ledger: Path, *domain: str) -> list[str]:
    return ["recipe", "frequent-items", "--data", str(data), *domain, "--cutoff", "1", "--epsilon", "0.1",
            "--budget-epsilon", "1", "--ledger", str(ledger)]


@pytest.mark.parametrize("kind, said", [("fifo", "named pipe"), ("folder", "folder"), ("empty", "empty"),
                                        ("blank", "no items")])
def test_the_item_domain_file_goes_through_the_guarded_reader(baskets, tmp_path, kind, said, capsys):
    path = tmp_path / "items.txt"
    if kind == "fifo":
        os.mkfifo(path)  # read_text() on it blocked forever
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_text("" if kind == "empty" else " \n\t\n")
    argv = _items_argv(baskets, tmp_path / "l.sqlite", "--items-file", str(path))
    _refused(argv, capsys, "--items-file", said)


def test_an_item_range_larger_than_any_run_is_refused(baskets, tmp_path, capsys):
    # list(range(0, 10**10 + 1)) ran out of memory
    _refused(_items_argv(baskets, tmp_path / "l.sqlite", "--items-range", "0", str(10**10)), capsys,
             "--items-range")


def test_a_fimi_item_id_past_64_bits_is_named_with_its_line(tmp_path, capsys):
    data = tmp_path / "big.dat"
    data.write_text("1 2\n3 " + "9" * 25 + "\n")  # was OverflowError converting to int64 (exit 70)
    _refused(["queries", "generate", "every-item", "--observed", str(data), "--out", "-"], capsys,
             "big.dat", "line 2", "64 bits")


def test_a_dataset_given_by_observed_is_named_by_that_option(tmp_path, capsys):
    argv = ["queries", "generate", "every-item", "--observed", str(tmp_path / "none.dat"), "--out", "-"]
    line = _refused(argv, capsys, "--observed:", "none.dat")
    assert "--data" not in line  # the command has no --data: it named an option nobody typed


def test_a_fimi_id_too_long_to_convert_is_named_not_a_python_limit(tmp_path, capsys):
    data = tmp_path / "digits.dat"
    data.write_text("1 2\n" + "7" * 5000 + "\n")  # int() refused it: "Exceeds the limit (4300 digits)"
    line = _refused(["queries", "generate", "every-item", "--observed", str(data), "--out", "-"], capsys,
                    "digits.dat", "line 2", "64 bits")
    assert "4300" not in line


@pytest.mark.parametrize("basket, column, said", [
    ("3 -4 5", 3, "item id '-4'"), ("3  1.5", 4, "item id '1.5'"), ("3 2x", 3, "item '2x' is a word")])
def test_a_fimi_item_that_is_no_item_id_is_named_with_its_line_and_column(tmp_path, basket, column, said,
                                                                          capsys):
    # -4 or 1.5 made every id of the file a text, so --items-range 1 5 matched nothing, charged
    data = tmp_path / "odd.dat"
    data.write_text("1 2 3\n" + basket + "\n")
    _refused(_items_argv(data, tmp_path / "l.sqlite", "--items-range", "1", "5"), capsys,
             f"odd.dat, line 2, column {column}: {said}")


@pytest.mark.parametrize("method", ["em_top_c", "standard_svt"])
def test_a_cutoff_larger_than_the_item_domain_is_refused_before_the_charge(baskets, tmp_path, method, capsys):
    # "the 10 most frequent items" of 5 released every item, each choice with ε/10 where ε/5 was possible
    ledger = tmp_path / "l.sqlite"
    argv = [*_items_argv(baskets, ledger, "--items-range", "1", "5", "--method", method, "--threshold", "3"),
            "--cutoff", "6"]
    _refused(argv, capsys, "cutoff c = 6 is more than the 5 items", "at most 5")
    assert main([*argv[:-1], "5"]) == 0  # every item of the domain, ranked: allowed
    capsys.readouterr()


@pytest.mark.parametrize("name, head", [("run.dat", "1 2\n"), ("run.jsonl", '{"x": 1}\n{"x": "')])
def test_a_line_oriented_file_with_a_run_past_the_line_cap_is_refused(known, monkeypatch, name, head, capsys):
    # a 2 GB run without a newline was read whole into memory; the cap is lowered so the test is small
    monkeypatch.setattr("svtgui.data.textio.MAX_RECORD_BYTES", 1000)
    data = known["dir"] / name
    data.write_text(head + "7" * 5000)
    argv = ["queries", "show", str(known["queries"]), "--data", str(data)]
    _refused(argv, capsys, name, "line 2", "1,000 characters")


def test_excel_values_under_an_unnamed_header_column_are_refused(known, tmp_path, capsys):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.active.append(["x"])
    book.active.append([1, 2])  # loaded as columns 'x' and 'Unnamed: 1'
    book.save(tmp_path / "wide.xlsx")
    _refused(["queries", "show", str(known["queries"]), "--data", str(tmp_path / "wide.xlsx")], capsys,
             "wide.xlsx", "column B")


def test_a_declared_kind_the_values_cannot_have_is_refused(known, capsys):
    # 'colour' holds text; declared numeric, `colour = 'red'` silently matched no row and was charged
    wrong = {**SCHEMA, "columns": [SCHEMA["columns"][0], {"name": "colour", "kind": "numeric"}]}
    schema = known["dir"] / "wrong-kind.json"
    schema.write_text(json.dumps(wrong))
    argv = ["run", *_inputs(known["data"], known["queries"], schema), "--ledger", str(known["ledger"])]
    _refused(argv, capsys, "'colour'", "declared numeric", ledger=known["ledger"])


def test_a_declared_public_n_that_is_not_the_row_count_is_refused_before_the_charge(known, capsys):
    # a mean (Δ = 1/n) was charged, then failed mid-run: the run ended 'interrupted' with its ε spent
    replace = {**SCHEMA, "neighbouring": "replace", "n": 5}
    schema = known["dir"] / "wrong-n.json"
    schema.write_text(json.dumps(replace))
    mean = known["dir"] / "mean.json"
    mean.write_text(json.dumps([{"kind": "mean", "where": {"column": "x", "op": "<", "value": 10}}]))
    argv = ["run", *_inputs(known["data"], mean, schema), "--ledger", str(known["ledger"])]
    line = _refused(argv, capsys, "wrong-n.json", "declared public n (5", ledger=known["ledger"])
    assert "300" not in line.replace(str(known["dir"]), "")  # the data's own count is not repeated (the
    # test's folder name may hold any number: pytest numbers its temporary folders)


def test_a_library_message_with_line_breaks_is_printed_on_one_line(known, monkeypatch, capsys):
    from svtgui.data.predicates import QueryError

    def broken(path):
        raise QueryError("Couldn't deserialize thrift: Invalid data\nDeserializing page header failed.\n")

    monkeypatch.setattr("svtgui.data.queries.read_queries", broken)  # pyarrow's messages hold newlines
    _refused(_run(known), capsys, "Invalid data Deserializing page header failed.")


def test_universe_bins_past_the_cell_limit_are_refused_before_they_are_built(known, capsys):
    _refused(_run(known, "--mechanism", "pmw", "--delta", "1e-6", "--universe", "x:99999999999"), capsys,
             "--universe", "x:99999999999", ledger=known["ledger"])


@pytest.mark.parametrize("text, said", [
    ("x,colour\n1,red\n2\n", "line 3"),  # DuckDB's sniffer read this as one column 'x,colour'
    ('x,colour\n1,"red, dark"\n2\n', "line 3"),
    ("x,colour\n1,red\n2,blue,3\n", "line 3"),  # DuckDB returned no rows at all
    ("x,x\n1,2\n", "repeats"),  # DuckDB renamed it x_1
    ("x,colour\n", "no data rows"),
    ("x,colour\n1,red\n2,blue,\n", "line 3"),  # DuckDB dropped the empty extra field, even in strict mode
    ("x,colour\n1,red\n2,blue,,\n", "line 3"),
])
def test_duckdb_text_gets_the_memory_loaders_checks(known, tmp_path, text, said, capsys):
    pytest.importorskip("duckdb")
    data = tmp_path / "t.csv"
    data.write_text(text)
    _refused(["queries", "show", str(known["queries"]), "--data", str(data), "--engine", "duckdb"], capsys,
             "t.csv", said)


@pytest.mark.parametrize("text, said", [
    ('{"colour": "red"}\n{"colour": 1e20}\n', "line 2: field 'colour' holds texts and the number 1e20"),
    ('{"colour": [1.5]}\n', "list items must be whole numbers"),
])
def test_duckdb_json_lines_get_the_memory_loaders_checks(known, tmp_path, text, said, capsys):
    """A number among texts that engines would write two ways (1e+20, 1e20) is refused on every
    engine (issue 22 §2)."""
    pytest.importorskip("duckdb")
    data = tmp_path / "t.jsonl"
    data.write_text(text)
    _refused(["queries", "show", str(known["queries"]), "--data", str(data), "--engine", "duckdb"], capsys,
             "t.jsonl", said)


def test_duckdb_reads_text_that_is_not_utf8_as_the_memory_engine_does(known, tmp_path, capsys):
    """It was misread as columns 'x\x00,\x00c…', then refused; now DuckDB reads a private UTF-8 copy
    (issue 22 §2: the memory engine's verdict on every engine)."""
    pytest.importorskip("duckdb")
    from svtgui.data.engines import open_dataset
    from svtgui.data.evaluate import evaluate
    from svtgui.data.predicates import Condition
    from svtgui.data.queries import Count

    data = tmp_path / "wide.csv"
    data.write_bytes("x,colour\n1,red\n2,blue\n".encode("utf-16"))
    duck, memory = open_dataset(data, engine="duckdb"), open_dataset(data, engine="memory")
    batch = [Count(Condition("colour", "=", "red")), Count(Condition("x", ">", 1))]
    assert list(evaluate(duck, batch)) == list(evaluate(memory, batch)) == [1.0, 1.0]
    copy = duck.table.copy
    assert copy is not None and copy.exists() and oct(copy.parent.stat().st_mode & 0o777) == "0o700"
    duck.table.close()
    assert not copy.exists()  # removed on close


# -- a derived ε or probability too small: the option the curator typed is named -----------------------

@pytest.mark.parametrize("share, said", [("5e-324", "epsilon × screen_share"),
                                         ("0.9999999999999", "epsilon × (1 − screen_share) / cutoff")])
def test_a_screen_share_that_starves_one_part_names_the_share(known, share, said, capsys):
    argv = ["recipe", "screen-ranges", "--data", str(known["data"]), "--schema", str(known["schema"]),
            "--column", "x", "--start", "0", "--stop", "100", "--width", "10", "--epsilon", "1",
            "--threshold", "20", "--cutoff", "2", "--screen-share", share, "--ledger", str(known["ledger"])]
    line = _refused(argv, capsys, "screen_share", said, ledger=known["ledger"])
    assert "raise epsilon" in line


@pytest.mark.parametrize("option, name", [("--delta", "delta must be in ["), ("--beta", "beta must be in [")])
def test_a_sparse_project_probability_past_a_double_is_named_with_its_range(known, option, name, capsys):
    argv = ["sparse-project", "build", "--data", str(known["data"]), "--schema", str(known["schema"]),
            "--columns", "colour", "--epsilon", "1", option, "5e-324",
            "--out", str(known["dir"] / "r.svtrelease"), "--ledger", str(known["ledger"])]
    _refused(argv, capsys, name, ledger=known["ledger"])


# -- outputs (issue 22 §1, §5): never an input; a path under a regular file names that file ----------------

def test_a_report_over_the_query_list_is_refused_before_the_charge(known, capsys):
    before = known["queries"].read_bytes()
    _refused(_run(known, "--report", str(known["queries"])), capsys, "--report", "is the query list",
             ledger=known["ledger"])
    assert known["queries"].read_bytes() == before


def test_a_report_path_under_a_regular_file_names_that_file(known, capsys):
    line = _refused(_run(known, "--report", str(known["data"] / "r.html")), capsys, "--report",
                    f"{known['data']} is a file, not a directory", ledger=known["ledger"])
    assert "does not exist" not in line


@pytest.mark.parametrize("recipe", [False, True])
def test_a_bad_report_path_beside_an_overspend_lists_both(known, tmp_path, recipe, capsys):
    # the early report check refused the path alone, though a refusal lists every problem (docs/cli.md)
    ledger = tmp_path / "l.sqlite"
    given = ["--data", str(known["data"]), "--schema", str(known["schema"]),
             "--queries", str(known["queries"]), "--threshold", "5", "--cutoff", "1", "--epsilon", "0.5",
             "--ledger", str(ledger), "--budget-epsilon", "0.25"]
    argv = ["recipe", "screen-ranges", *given] if recipe else ["run", *given, "--mechanism", "sparse"]
    bad = [str(known["data"] / "r.html"), str(tmp_path / "r.foo")]
    line = _refused([*argv, "--report", bad[0], "--report", bad[1]], capsys, f"{known['data']} is a file",
                    "unknown format '.foo'", "0.25")
    assert line.count("(nothing was charged)") == 1
    assert _runs(ledger) == 0
    assert main(argv) == 3  # the budget alone: 3
    capsys.readouterr()


def test_release_build_lists_a_missing_run_and_every_bad_output(known, capsys):
    bad = [str(known["data"] / "r.html"), str(known["dir"] / "r.foo")]
    argv = ["release", "build", "1", "99", "--ledger", str(known["ledger"]), "--out", bad[0], "--out", bad[1]]
    _refused(argv, capsys, "run 99 is not in the ledger", f"{known['data']} is a file",
             "unknown format '.foo'")


def test_a_config_just_over_the_size_cap_says_by_how_much(known, capsys):
    # "the file is 1.0 MiB, more than the 1.0 MiB a config file may be" (issue 22 §5)
    from svtgui.cli.config import CONFIG_LIMIT

    config = known["dir"] / "big.toml"
    config.write_text("# " + "x" * (CONFIG_LIMIT - 2) + "\n")  # one byte over the cap
    line = _refused(_run(known, "--config", str(config)), capsys, "--config", ledger=known["ledger"])
    assert f"{CONFIG_LIMIT + 1:,} bytes, more than the {CONFIG_LIMIT:,} bytes" in line


@pytest.mark.parametrize("where", [
    {"column": "x", "op": "=", "value": "thirty"},  # matched nothing, and was charged (issue 22 §5)
    {"column": "x", "op": "!=", "value": "thirty"},
    {"column": "x", "op": "in", "value": [1, "thirty"]},
    {"column": "x", "op": ">=", "value": "abc"},  # refused already: the same class
    {"column": "x", "op": "=", "value": "nan"},  # a number's text that is no value: matched nothing, charged
    {"column": "x", "op": "in", "value": [1, "inf"]},
    {"column": "x", "op": "<", "value": "-1e400"},
])
def test_a_value_a_numeric_column_cannot_hold_is_refused_whatever_the_operator(known, where, capsys):
    queries = known["dir"] / "thirty.json"
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1, "queries": [
        {"kind": "count", "where": where}]}))
    argv = ["run", *_inputs(known["data"], queries, known["schema"]), "--ledger", str(known["ledger"])]
    _refused(argv, capsys, "--queries", "'x' is numeric", "is not a", "number", ledger=known["ledger"])


def test_a_full_disk_at_the_ledger_s_opening_is_named_not_the_rollback(tmp_path, monkeypatch, capsys):
    # SQLite rolls a transaction back by itself on SQLITE_FULL; the ROLLBACK in a finally then failed
    # with "cannot rollback - no transaction is active", which was all the curator saw (issue 22 §5)
    from svtgui.ledger import sqlite_db

    def full(conn):
        conn.execute("ROLLBACK")  # what SQLite does on a full disk, before the error reaches Python
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(sqlite_db, "_schema_state", full)
    (tmp_path / "l.sqlite").touch()  # an empty file is a new database: `ledger` refuses only a missing one
    line = _refused(["ledger", "--ledger", str(tmp_path / "l.sqlite")], capsys, "the disk is full")
    assert "rollback" not in line.split("(")[0]


def test_no_usable_range_is_suggested_when_it_is_empty(known, capsys):
    # "--epsilon 1e300" also advised "sensitivity must be in [1.01e+300, 1e+300]" (issue 22 §5)
    argv = [*_run(known), "--epsilon", "1e300", "--budget-epsilon", "1e301"]
    line = _refused(argv, capsys, "epsilon must be in [", ledger=known["ledger"])
    for low, high in re.findall(r"must be in \[([^,\]]+), ([^\]]+)\]", line):
        assert float(low) <= float(high), line


def test_a_sum_whose_bound_is_past_the_sampler_blames_the_query_not_sensitivity(known, capsys):
    queries = known["dir"] / "huge-sum.json"
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1, "queries": [
        {"kind": "sum", "column": "x", "lower": 0, "upper": 1e308}]}))
    argv = ["run", *_inputs(known["data"], queries, known["schema"]), "--ledger", str(known["ledger"])]
    argv[argv.index("sparse")] = "numeric_sparse"
    line = _refused(argv, capsys, "--queries", "1e+308", "narrower bounds", ledger=known["ledger"])
    assert not line.split("error: ")[1].startswith("sensitivity")


def test_an_epsilon_too_small_to_split_names_epsilon_not_a_rounded_zero(known, capsys):
    # "recipe auto-mean --epsilon 5e-324" said "epsilon must be > 0, got 0.0" (issue 22 §5)
    line = _refused(["recipe", "auto-mean", "--data", str(known["data"]), "--schema", str(known["schema"]),
                     "--column", "x", "--epsilon", "5e-324", "--ledger", str(known["ledger"])], capsys,
                    "too small to split 3 ways", ledger=known["ledger"])
    assert "got 0.0" not in line


def test_a_refused_plan_reports_every_problem_and_the_documented_code(known, tmp_path, monkeypatch, capsys):
    # sparse-project build with two problems named one; exit 3 only when the budget is all that is wrong
    from svtgui.app import outputs

    argv = ["sparse-project", "build", "--data", str(known["data"]), "--schema", str(known["schema"]),
            "--columns", "colour", "--T", "64", "--ledger", str(known["ledger"]),
            "--out", str(tmp_path / "r.npz")]
    monkeypatch.setattr(outputs, "_free_bytes", lambda folder: 10)  # and no room for the release file
    line = _refused([*argv, "--epsilon", "50"], capsys, "does not fit", "--out", "bytes are free",
                    ledger=known["ledger"])
    assert line.count("(nothing was charged)") == 1
    monkeypatch.setattr(outputs, "_free_bytes", lambda folder: 10**12)
    assert main([*argv, "--epsilon", "50"]) == 3  # the budget alone: 3
    capsys.readouterr()


# -- curator text a report or the audit trail publishes (issue 22 §5, red team) ---------------------------

def _ledger_texts(ledger: Path) -> tuple:
    with sqlite3.connect(ledger) as c:
        return tuple(c.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                     for t in ("public_names", "budget_events", "relation_events"))


@pytest.mark.parametrize("action, text, said", [
    (["set-name", "{id}"], "Census \u202e4202", "U+202E (RIGHT-TO-LEFT OVERRIDE) at character 8"),
    (["set-name", "{id}"], "Census\u2066 2024", "U+2066 (LEFT-TO-RIGHT ISOLATE)"),
    (["set-name", "{id}"], "Cen\u200bsus", "U+200B (ZERO WIDTH SPACE)"),
    (["set-name", "{id}"], "Census \x1b[2K2024", "U+001B"),
    (["set-name", "{id}"], "x" * 201, "201 characters long, more than the 200"),
    (["raise", "{id}", "--total-epsilon", "20", "--note"], "ok\u202b", "the note holds U+202B"),
    (["set-relation", "{id}", "replace", "--n", "300", "--reason"], "\u2067why", "the reason holds U+2067"),
])
def test_curator_text_that_could_make_a_report_lie_is_refused(known, action, text, said, capsys):
    # a public name holding a bidi override printed one name and held another, in every report
    from svtgui.ledger import Ledger

    with Ledger.open(known["ledger"]) as led:
        (record,) = led.datasets()
    before = _ledger_texts(known["ledger"])
    argv = ["ledger", *[a.format(id=record.dataset_id) for a in action], text,
            "--ledger", str(known["ledger"])]
    _refused(argv, capsys, said, ledger=known["ledger"])
    assert _ledger_texts(known["ledger"]) == before
    with Ledger.open(known["ledger"]) as led:
        assert led.dataset(record.dataset_id).public_name == record.public_name


# -- strict keys, signals (issue 22 §3, §4; full matrices: test_strict_keys, test_signals_at_start) ------

def test_a_misspelled_key_inside_a_schema_is_named_by_its_path(known, tmp_path, capsys):
    schema = json.loads(json.dumps(SCHEMA))
    schema["columns"][0]["uper"] = schema["columns"][0].pop("upper")
    bad = tmp_path / "typo.json"
    bad.write_text(json.dumps(schema))
    argv = ["run", *_inputs(known["data"], known["queries"], bad), "--ledger", str(known["ledger"])]
    _refused(argv, capsys, "unknown key 'columns[0].uper'", ledger=known["ledger"])


def test_a_signal_during_the_start_up_imports_is_the_interruption(monkeypatch, capsys):
    # pandas turns a KeyboardInterrupt inside its import into "Unable to import required dependency
    # numpy": main() printed that traceback (exit 1) instead of the one "interrupted" line
    import signal

    import svtgui.cli as cli

    def interrupted_import(name):
        try:
            os.kill(os.getpid(), signal.SIGINT)  # raises KeyboardInterrupt here, as inside numpy's import
        except KeyboardInterrupt as exc:
            raise ImportError("Unable to import required dependency numpy") from exc

    monkeypatch.setattr(cli.importlib, "import_module", interrupted_import)
    _refused(["mechanisms"], capsys, "interrupted (Ctrl-C)")


def test_a_release_file_under_a_regular_file_names_that_file(known, capsys):
    argv = ["sparse-project", "build", "--data", str(known["data"]), "--schema", str(known["schema"]),
            "--columns", "colour", "--epsilon", "0.1", "--T", "64", "--ledger", str(known["ledger"]),
            "--out", str(known["queries"] / "r.npz")]
    line = _refused(argv, capsys, "--out", f"{known['queries']} is a file, not a directory",
                    ledger=known["ledger"])
    assert "does not exist" not in line


# -- numbers at the edges of every numeric option (issue 22 §5, red team) --------------------------------

BIG = "1" + "0" * 400  # an integer no double holds: float() of it is an OverflowError


@pytest.mark.parametrize("argv, option", [
    (["run", "--cutoff", BIG], "--cutoff"),  # exit 70: the usable-range message formatted it with :g
    (["run", "--batch-size", BIG], "--batch-size"),
    (["recipe", "frequent-items", "--data", "d.dat", "--items-range", "0", "5", "--epsilon", "1",
      "--cutoff", BIG], "--cutoff"),  # exit 70
    (["recipe", "screen-ranges", "--data", "d.csv", "--column", "x", "--start", "0", "--stop", "9",
      "--width", "1", "--threshold", "1", "--epsilon", "1", "--cutoff", BIG], "--cutoff"),  # exit 70
    (["sparse-project", "build", "--data", "d.csv", "--columns", "x", "--epsilon", "1", "--out", "r.npz",
      "--T", BIG], "--T"),  # exit 70
    (["sparse-project", "build", "--data", "d.csv", "--columns", "x", "--epsilon", "1", "--out", "r.npz",
      "--queries-k", BIG], "--queries-k"),  # "no single change of epsilon, … makes it usable"
    (["ledger", "set-relation", "ds-", "replace", "--reason", "r", "--n", BIG], "--n"),  # exit 70 (SQLite)
    (["audit", "sparse", "--epsilon", "1", "--cutoff", BIG], "--cutoff"),
    (["queries", "generate", "random-ranges", "--column", "x", "--low", "0", "--high", "9", "--out", "-",
      "-k", BIG], "-k"),
])
def test_an_integer_option_too_large_for_anything_is_named_at_once(argv, option, capsys):
    line = _refused(argv, capsys, option, "401 digits is too large")
    assert len(line) < 300
    many = [a if a != BIG else "9" * 5000 for a in argv]  # past int()'s 4,300 digits: quoted whole
    line = _refused(many, capsys, option, "5,000 digits is too large")
    assert len(line) < 300


def test_an_integer_too_large_in_a_config_is_named_by_its_key(known, capsys):
    config = known["dir"] / "huge.toml"
    config.write_text(f'data = "toy.csv"\nqueries = "q.json"\nschema = "schema.json"\nmechanism = "sparse"\n'
                      f"epsilon = 0.1\nthreshold = 5.0\ncutoff = {BIG}\n")  # exit 70
    _refused(["run", "--config", str(config), "--ledger", str(known["ledger"])], capsys, "'cutoff'",
             "401 digits is too large", ledger=known["ledger"])


def test_a_parameter_beyond_a_double_is_named_not_an_internal_error(known, capsys):
    _refused(_run(known, "--param", f"sensitivity={BIG}"), capsys, "--param sensitivity", "401 digits",
             ledger=known["ledger"])  # float(10**400) in the type check: exit 70


@pytest.mark.parametrize("query, field", [
    ({"kind": "count", "where": {"column": "x", "op": "=", "value": 1e400}}, "'value'"),  # read as inf:
    # "Out of range float values are not JSON compliant", naming no file, query or field
    ({"kind": "count", "where": {"column": "x", "op": "between", "value": [0, int(BIG)]}}, "'value'"),
    ({"kind": "range", "column": "x", "low": 0, "high": int(BIG)}, "'high'"),  # "a field has the wrong type"
])
def test_a_query_number_beyond_a_double_names_its_field(known, query, field, capsys):
    queries = known["dir"] / "beyond.json"
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1, "queries": [query]}))
    argv = ["run", *_inputs(known["data"], queries, known["schema"]), "--ledger", str(known["ledger"])]
    _refused(argv, capsys, "beyond.json", field, "beyond the range of a double", ledger=known["ledger"])


def test_a_schema_bound_beyond_a_double_names_its_column(known, capsys):
    bad = {**SCHEMA, "columns": [{**SCHEMA["columns"][0], "upper": int(BIG)}, SCHEMA["columns"][1]]}
    schema = known["dir"] / "beyond.schema.json"
    schema.write_text(json.dumps(bad))
    _refused(_run(known, "--schema", str(schema)), capsys, "column 'x'", "upper bound", "beyond the range",
             ledger=known["ledger"])  # "a schema field has the wrong type (int too large …)"


@pytest.mark.parametrize("argv, said", [
    (["--param", "sensitivity=5e-324"], "4.94 × 10⁻³²⁴"),  # was "0.000…" with 323 zeros
])
def test_a_tiny_number_in_a_message_is_a_power_of_ten_not_hundreds_of_zeros(known, argv, said, capsys):
    line = _refused(_run(known, *argv), capsys, said, ledger=known["ledger"])
    assert len(line) < 200 and "0000000000" not in line, line


def test_a_sweep_past_the_query_cap_says_how_many_without_hundreds_of_digits(capsys):
    line = _refused(["queries", "generate", "range-sweep", "--column", "x", "--start", "0", "--stop", "1e308",
                     "--width", "1", "--out", "-"], capsys, "1 × 10³⁰⁸ queries", "5,000,000")
    assert len(line) < 200, line  # the count was printed in full: 103 groups of three digits


@pytest.mark.parametrize("split, part", [("1e308,1,1", "the sum"), ("1,1e308,1", "the bound search")])
def test_an_auto_mean_split_that_starves_a_step_names_the_step_and_the_split(known, split, part, capsys):
    # "the Laplace noise scale would be inf lattice steps", naming neither the step nor the split
    argv = ["recipe", "auto-mean", "--data", str(known["data"]), "--schema", str(known["schema"]),
            "--column", "x", "--epsilon", "1", "--ledger", str(known["ledger"]), "--split", split]
    _refused(argv, capsys, part, "split", ledger=known["ledger"])


@pytest.mark.parametrize("command", ["run", "queries generate"])
def test_a_ledger_or_query_list_path_under_a_regular_file_names_that_file(known, command, tmp_path, capsys):
    # "cannot create the ledger directory notes.txt: File exists", "--out notes.txt/q.json: Not a directory"
    notes = tmp_path / "notes.txt"
    notes.write_text("a curator's notes\n")
    argv = ([*_run(known), "--ledger", f"{notes}/ledger.sqlite"] if command == "run" else
            ["queries", "generate", "range-sweep", "--column", "x", "--start", "0", "--stop", "5",
             "--width", "1", "--out", f"{notes}/q.json"])
    _refused(argv, capsys, f"{notes} is a file, not a")
    assert notes.read_text() == "a curator's notes\n"


@pytest.mark.parametrize("argv", [["ledger"], ["report", "1", "--out", "r.html"],
                                  ["release", "build", "1", "--out", "r.html"],
                                  ["ledger", "set-name", "ds-", "x"]])
def test_a_command_on_a_ledger_that_does_not_exist_says_so_and_creates_nothing(argv, tmp_path, capsys):
    # a typo in --ledger created an empty ledger there and said "no run 1 in the ledger typo.sqlite"
    typo = tmp_path / "folder" / "ledgr.sqlite"
    _refused([*argv, "--ledger", str(typo)], capsys, f"no ledger at {typo}", "nothing was created")
    assert not typo.parent.exists()



@pytest.mark.parametrize("command", ["sparse-project build", "run"])
def test_a_release_path_under_a_file_is_listed_with_an_overspend(known, command, tmp_path, capsys):
    # the path's problem (found where the universe is split off) hid the overspend: one problem of two
    notes = tmp_path / "notes.txt"
    notes.write_text("a curator's notes\n")
    argv = (["sparse-project", "build", "--columns", "colour", "--T", "64", "--out", f"{notes}/r.npz"]
            if command != "run" else
            ["run", "--mechanism", "sparse_project", "--universe", "colour", "--param", "projection_size=64",
             "--release-out", f"{notes}/r.npz"])
    _refused([*argv, "--data", str(known["data"]), "--schema", str(known["schema"]), "--epsilon", "50",
              "--delta", "1e-9", "--ledger", str(known["ledger"])], capsys, "notes.txt is a file",
             "does not fit", ledger=known["ledger"])


@pytest.mark.parametrize("extra, option", [(["--script", "{d}/r.html"], "--script"),  # not a .py name
                                           (["--plan-dir", "{d}/missing"], "--plan-dir"),
                                           (["--script", "{d}/missing/r.py"], "--script")])
def test_release_build_checks_every_output_before_writing_the_first(known, extra, option, tmp_path, capsys):
    # `--out r.html --script r.html` wrote the release, then refused the script: exit 2, one file written
    folder = tmp_path / "release"
    folder.mkdir()
    argv = ["release", "build", "1", "--ledger", str(known["ledger"]), "--out", str(folder / "r.html"),
            *(a.replace("{d}", str(folder)) for a in extra)]
    _refused(argv, capsys, option)
    assert list(folder.iterdir()) == []


def test_a_bad_schema_is_named_where_it_was_given(known, capsys):
    # a config's schema read "--data: schema: …", as if the data were at fault (issue 22 §5)
    d = known["dir"]
    schema = json.loads(json.dumps(SCHEMA))
    schema["columns"][0]["uper"] = 5
    (d / "typo.schema.json").write_text(json.dumps(schema))
    config = d / "schema-typo.toml"
    config.write_text('data = "toy.csv"\nqueries = "q.json"\nschema = "typo.schema.json"\n'
                      'mechanism = "sparse"\nepsilon = 0.1\nthreshold = 5.0\ncutoff = 1\n')
    argv = ["run", "--config", str(config), "--ledger", str(known["ledger"])]
    line = _refused(argv, capsys, f"--config {config}: key 'schema': {d / 'typo.schema.json'}: ",
                    "'columns[0].uper'", ledger=known["ledger"])
    assert "--data" not in line
    typed = _refused([*argv, "--schema", str(d / "typo.schema.json")], capsys,
                     f"--schema {d / 'typo.schema.json'}: ", ledger=known["ledger"])
    assert "--data" not in typed and "--config" not in typed


@pytest.mark.parametrize("line, key, option", [
    ('report = "notes.txt/r.html"', "report", "--report"),  # named "--report", an option nobody typed
    ('report = "r.xyz"', "report", "--report"),
    ("batch_size = 0", "batch_size", "--batch-size"),
    ('spark_conf = ["no-equals-sign"]', "spark_conf", "--spark-conf"),
])
def test_an_error_in_a_config_value_names_the_config_key_not_an_option(known, line, key, option, capsys):
    # as a [params] value's error read "--param" (issue 22 §5), so did every other key's
    (known["dir"] / "notes.txt").write_text("notes\n")
    config = known["dir"] / f"k{abs(hash(line))}.toml"
    config.write_text(f'data = "toy.csv"\nqueries = "q.json"\nschema = "schema.json"\nmechanism = "sparse"\n'
                      f"epsilon = 0.1\nthreshold = 5.0\ncutoff = 1\n{line}\n")
    argv = ["run", "--config", str(config), "--ledger", str(known["ledger"])]
    line = _refused(argv, capsys, f"--config {config}: key '{key}'", ledger=known["ledger"])
    assert option not in line
    if key == "report":  # typed on the command line (over the config's): named as the option
        typed = _refused([*argv, "--report", str(known["dir"] / "notes.txt/r.html")], capsys, "--report",
                         ledger=known["ledger"])
        assert "--config" not in typed


@pytest.mark.parametrize("listed", ["1\n1\n2\n", "1\n2\n01\n"])
def test_an_item_domain_listing_an_item_twice_is_refused_before_the_charge(baskets, tmp_path, listed, capsys):
    # the repeated item was two candidates of the choice: twice as likely to be released by EM
    items = tmp_path / "items.txt"
    items.write_text(listed)
    ledger = tmp_path / "l.sqlite"
    assert main(_items_argv(baskets, ledger, "--items-range", "1", "2")) == 0  # the dataset is known now
    capsys.readouterr()
    _refused(_items_argv(baskets, ledger, "--items-file", str(items)), capsys, "lists 1 twice", ledger=ledger)


@pytest.mark.parametrize("option", ["--data", "--queries", "--report", "--ledger"])
def test_a_home_folder_of_no_known_user_is_named_not_an_internal_error(known, option, capsys):
    # `--data ~adult.csv` (a typo for ~/adult.csv): pathlib's "Could not determine home directory", exit 70
    argv = _run(known)
    if option in argv:
        argv[argv.index(option) + 1] = "~no-such-user-here/x.json"
    else:
        argv += [option, "~no-such-user-here/x.json"]
    _refused(argv, capsys, option, "no user 'no-such-user-here'", ledger=known["ledger"])


def test_a_config_path_under_the_home_folder_is_the_home_folder(known, tmp_path, monkeypatch, capsys):
    # data = "~/toy.csv" was read as a folder named '~' beside the config: "no such file"
    home = tmp_path / "home"
    home.mkdir()
    (home / "toy.csv").write_bytes(known["data"].read_bytes())
    monkeypatch.setenv("HOME", str(home))
    config = tmp_path / "run.toml"
    config.write_text(f'data = "~/toy.csv"\nqueries = "{known["queries"]}"\nschema = "{known["schema"]}"\n'
                      'mechanism = "sparse"\nepsilon = 0.1\nthreshold = 5.0\ncutoff = 1\n')
    code = main(["run", "--config", str(config), "--ledger", str(known["ledger"])])
    assert code == 0, capsys.readouterr().err


@pytest.mark.parametrize("key", ["data", "queries", "ledger", "report"])
def test_a_config_path_holding_a_nul_names_its_key(known, key, capsys):
    # TOML's "\u0000" reached the file system: "embedded null byte", naming no key
    lines = {"data": '"toy.csv"', "queries": '"q.json"', "schema": '"schema.json"', "mechanism": '"sparse"',
             "epsilon": "0.1", "threshold": "5.0", "cutoff": "1", key: '"x\\u0000y.json"'}
    config = known["dir"] / f"nul-{key}.toml"
    config.write_text("".join(f"{k} = {v}\n" for k, v in lines.items()))
    argv = ["run", "--config", str(config)] + ([] if key == "ledger" else ["--ledger", str(known["ledger"])])
    _refused(argv, capsys, f"key '{key}'", "NUL", ledger=known["ledger"])


def test_a_session_data_path_holding_a_nul_names_the_field(known, capsys):
    session = known["dir"] / "nul.svtsession"
    session.write_text(json.dumps({
        "format": "svtgui-session", "version": 3,
        "dataset": {"path": "to\u0000y.csv", "schema": SCHEMA},
        "mechanism": {"id": "sparse", "params": {"epsilon": 0.1, "threshold": 5, "cutoff": 1}}}))
    _refused(["run", "--session", str(session), "--ledger", str(known["ledger"])], capsys, "nul.svtsession",
             "'dataset.path'", "NUL", ledger=known["ledger"])


@pytest.mark.parametrize("split", ["-1,1,1", "-0,1,1", "inf,1,1", "1e999,1,1"])
def test_an_auto_mean_split_that_is_not_three_positive_finite_shares_is_named(known, split, capsys):
    # '-1,1,1' looked like an option to argparse ("expected one argument"); 'inf,1,1' passed and read
    # "epsilon = 0.01 is too small to split 3 ways (the bound search nan, …)"
    argv = ["recipe", "auto-mean", "--data", str(known["data"]), "--schema", str(known["schema"]),
            "--column", "x", "--epsilon", "1", "--ledger", str(known["ledger"]), "--split", split]
    _refused(argv, capsys, "--split", "positive finite numbers", repr(split), ledger=known["ledger"])


@pytest.mark.parametrize("argv, said", [
    (["every-item", "--items", "1", "2", "1"], "lists 1 twice"),  # two queries for one item, silently
    (["every-value", "--data", "{data}", "--column", "colour", "--values", "red", "blue", "red"],
     "lists 'red' twice"),
    (["random-ranges", "--column", "x", "-k", "3", "--low", "-1e308", "--high", "1e308"],
     "wider than a double"),  # numpy: "high - low range exceeds valid bounds", exit 70
])
def test_a_generated_list_refuses_a_repeated_value_and_a_range_past_a_double(known, argv, said, capsys):
    argv = ["queries", "generate", *(a.replace("{data}", str(known["data"])) for a in argv), "--out", "-"]
    _refused(argv, capsys, said)


@pytest.mark.parametrize("value", [2020, 1.5e18])
def test_a_date_column_compared_with_a_number_is_refused_before_the_charge(value, tmp_path, capsys):
    # pandas read 2020 as 2020 ns after 1970-01-01: `d > 2020` counted every row, and was charged
    data, queries, ledger = tmp_path / "dates.csv", tmp_path / "q.json", tmp_path / "l.sqlite"
    data.write_text("d,x\n" + "".join(f"20{10 + i % 15}-0{1 + i % 9}-1{i % 10},{i}\n" for i in range(60)))
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1, "queries": [
        {"kind": "count", "where": {"column": "d", "op": ">", "value": "2020-01-01"}}]}))
    argv = ["run", "--data", str(data), "--queries", str(queries), "--mechanism", "sparse",
            "--epsilon", "0.1", "--threshold", "5", "--cutoff", "1", "--budget-epsilon", "1",
            "--ledger", str(ledger)]
    assert main(argv) == 0  # a date as text: the dataset is known now
    capsys.readouterr()
    queries.write_text(json.dumps({"format": "svtgui-queries", "version": 1, "queries": [
        {"kind": "count", "where": {"column": "d", "op": ">", "value": value}}]}))
    _refused(argv, capsys, "'d' holds dates", "is a number, not a date", ledger=ledger)


@pytest.mark.parametrize("data", [".", "/"])
def test_a_folder_with_no_name_as_the_data_is_a_folder_not_a_python_error(known, data, capsys):
    # the sidecar of '.' was computed first: "PosixPath('.') has an empty name"
    argv = _run(known)
    argv[argv.index("--data") + 1] = data
    _refused(argv, capsys, "--data", "folder", ledger=known["ledger"])


def test_a_session_naming_no_data_file_says_so(known, capsys):
    session = known["dir"] / "nameless.svtsession"
    session.write_text(json.dumps({
        "format": "svtgui-session", "version": 3, "dataset": {"path": "", "schema": SCHEMA},
        "mechanism": {"id": "sparse", "params": {"epsilon": 0.1, "threshold": 5, "cutoff": 1}}}))
    _refused(["run", "--session", str(session), "--ledger", str(known["ledger"])], capsys,
             "nameless.svtsession", "'dataset.path' is empty", ledger=known["ledger"])


def test_a_release_path_a_session_gives_is_named_by_its_field(known, tmp_path, capsys):
    # its refusal read "--release-out …", an option nobody typed
    from svtgui.app.project_file import Session, save
    from svtgui.data import LoadOptions, load_dataset

    ds = load_dataset(known["data"], LoadOptions(schema=str(known["schema"])))
    params = {"epsilon": 0.1, "delta": 1e-6, "projection_size": 64, "universe": ["colour"],
              "release_out": str(known["data"].with_suffix(".npz"))}
    session = save(Session.from_state(ds, [], "sparse_project", params), tmp_path / "linear.svtsession")
    doc = json.loads(session.read_text())
    doc["linear"]["release_out"] = str(tmp_path / "linear.npz")
    session.write_text(json.dumps(doc))
    (tmp_path / "linear.npz").symlink_to(known["data"])  # the release would replace the data
    _refused(["run", "--session", str(session), "--ledger", str(known["ledger"])], capsys,
             f"--session {session}: field 'linear.release_out'", "is the dataset", ledger=known["ledger"])


@pytest.mark.parametrize("where", ["query list", "config"])
def test_a_number_past_pythons_digit_limit_is_said_without_pythons_advice(known, where, capsys):
    # "Exceeds the limit (4300 digits) …; use sys.set_int_max_str_digits() to increase the limit", and
    # from a config without naming it
    many = "9" * 5000
    if where == "config":
        config = known["dir"] / "digits.toml"
        config.write_text(f'data = "toy.csv"\nqueries = "q.json"\nmechanism = "sparse"\nepsilon = 0.1\n'
                          f"threshold = 5.0\ncutoff = {many}\n")
        argv, names = ["run", "--config", str(config), "--ledger", str(known["ledger"])], ("--config",)
    else:
        queries = known["dir"] / "digits.json"
        queries.write_text('{"format": "svtgui-queries", "version": 1, "queries": [{"kind": "range", '
                           f'"column": "x", "low": 0, "high": {many}}}]}}')
        argv, names = ["run", *_inputs(known["data"], queries, known["schema"]), "--ledger",
                       str(known["ledger"])], ("digits.json",)
    line = _refused(argv, capsys, *names, "5,000 digits", ledger=known["ledger"])
    assert "sys.set_int_max_str_digits" not in line
