"""Human evaluation round trip: `harness nle sample` -> filled CSVs -> `harness nle import`."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from harness.api import Suite, Task
from harness.hookspecs import hookimpl
from harness.testing import make_host, run_in_process
from vqa_harness_cli import main
from vqa_harness_plugins.probes.e_vil.human import RATINGS, draw_sample, spearman

LEVELS = ["no", "weak no", "weak yes", "yes"]


class Plugin:
    @hookimpl
    def register_suites(self, register):
        register(Suite("nle-human", "", (Task(
            "toyvqa:images=30", "val", ("nle",), train=("toyvqa:images=40", "train"),
            probe_options={"nle": {"metrics": "bleu1,rouge_l,cider", "tokenize": "simple", "gt": False}}),)))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = run_in_process(make_host(Plugin(), builtins=True), model="template-explainer", suite="nle-human",
                         tmp_path=tmp_path_factory.mktemp("h"))
    assert out.exit_code == 0, out.probe_failures
    return out.rundir.path


def _records(run_dir):
    (path,) = (run_dir / "artifacts" / "nle").rglob("*.jsonl")
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_sample_is_seeded_correct_only_unique_images():
    records = [{"id": f"q{i}", "image_id": f"img{i // 3}", "correct": i % 4 != 0, "explanation": "e"}
               for i in range(60)]
    a = draw_sample(records, n=10, seed=3)
    assert a == draw_sample(records, n=10, seed=3) and a != draw_sample(records, n=10, seed=4)
    assert len(a) == 10 and all(r["correct"] for r in a)
    assert len({r["image_id"] for r in a}) == 10
    assert len(draw_sample(records, n=300, seed=0)) == 20  # only 20 distinct images exist


def test_round_trip_reports_human_scores_shortcomings_and_correlations(run_dir, tmp_path, capsys):
    sample_csv = tmp_path / "sample.csv"
    assert main(["nle", "sample", str(run_dir), "--n", "25", "--seed", "1", "--out", str(sample_csv)]) == 0
    rows = list(csv.DictReader(sample_csv.open()))
    assert 10 <= len(rows) <= 25 and all(r["rating"] == "" for r in rows)
    records = {r["id"]: r for r in _records(run_dir)}
    assert all(records[r["example_id"]]["correct"] for r in rows)

    # Synthetic annotators whose rating rises with CIDEr (known positive correlation); annotator
    # c is one level harsher on odd items; b marks "nonsensical" on every third item.
    cider = np.array([records[r["example_id"]]["scores"]["cider"] for r in rows])
    level = np.searchsorted(np.quantile(cider, [0.25, 0.5, 0.75]), cider, side="right")
    files = []
    for who in ("a", "b", "c"):
        filled = []
        for k, (r, lv) in enumerate(zip(rows, level)):
            lv = max(0, lv - 1) if who == "c" and k % 2 else lv
            filled.append({**r, "annotator": who, "rating": LEVELS[lv],
                           "nonsensical": "x" if who == "b" and k % 3 == 0 else ""})
        path = tmp_path / f"filled_{who}.csv"
        with path.open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(filled)
        files.append(path)
    capsys.readouterr()
    assert main(["nle", "import", str(run_dir), *map(str, files), "--append-results"]) == 0
    out = capsys.readouterr().out
    assert "Spearman correlation" in out and "Non-sensical Sentence" in out

    human = np.array([np.mean([RATINGS[LEVELS[lv]], RATINGS[LEVELS[lv]],
                               RATINGS[LEVELS[max(0, lv - 1) if k % 2 else lv]]])
                      for k, lv in enumerate(level)])
    (summary_path,) = (run_dir / "artifacts" / "nle").rglob("*.human.json")
    summary = json.loads(summary_path.read_text())
    assert summary["s_e"] == pytest.approx(human.mean(), abs=1e-12)
    assert summary["s_o"] == summary["s_t"] * summary["s_e"]
    assert summary["shortcomings"]["nonsensical"] == pytest.approx(len(range(0, len(rows), 3)) / (3 * len(rows)))
    assert summary["shortcomings"]["untrue_to_image"] == 0.0
    rho, p = spearman(cider, human)
    assert rho > 0.8 and summary["correlations"]["cider"]["rho"] == pytest.approx(rho, abs=1e-12)
    assert summary["correlations"]["cider"]["p"] == pytest.approx(p, rel=1e-9)
    results = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    human_rows = {r["metric"]: r for r in results if r["variant"] == "human"}
    assert human_rows["s_o/human"]["value"] == summary["s_o"]
    assert human_rows["spearman/cider"]["unit"] == "correlation"
    assert human_rows["spearman/cider"]["higher_is_better"] is None  # the metric's trust, not the model's merit
    # The human rows have their paper tables: S_O / S_E, Table 5's shortcomings, Table 6's correlations.
    from vqa_harness_leaderboard import tables_of

    tables = {t.layout_id: t for t in tables_of([run_dir])["nle-human"]}
    short = tables["shortcomings"]
    assert short.reference.endswith("Table 5") and "Non-sensical Sentence" in short.headers
    line = short.body[0]
    assert line[short.headers.index("Non-sensical Sentence")] == f"{100 * summary['shortcomings']['nonsensical']:.1f}"
    rho_table = tables["correlation"]
    assert rho_table.reference.endswith("Table 6") and set(rho_table.directions) == {""}
    cider_line = next(x for x in rho_table.body if "CIDEr" in x)
    assert f"{summary['correlations']['cider']['rho']:.4f}" in cider_line


def test_bad_filled_csv_is_one_line_naming_file_row_field(run_dir, tmp_path, capsys):
    sample_csv = tmp_path / "s.csv"
    assert main(["nle", "sample", str(run_dir), "--n", "5", "--out", str(sample_csv)]) == 0
    rows = list(csv.DictReader(sample_csv.open()))
    bad = tmp_path / "bad.csv"
    with bad.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerow({**rows[0], "annotator": "a", "rating": "yes"})
        w.writerow({**rows[1], "annotator": "a", "rating": "maybe"})
    capsys.readouterr()
    assert main(["nle", "import", str(run_dir), str(bad)]) == 3
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"{bad}: row 2: field 'rating': 'maybe' is not one of yes, weak yes, weak no, no")
    assert len(err.splitlines()) == 1
    nocol = tmp_path / "nocol.csv"
    nocol.write_text("example_id,annotator\nx,a\n")
    assert main(["nle", "import", str(run_dir), str(nocol)]) == 3
    assert "row 0 (header): missing column(s) rating" in capsys.readouterr().err
    semi = tmp_path / "semicolons.csv"  # Excel in a European locale
    semi.write_text("example_id;annotator;rating\nx;a;yes\n")
    assert main(["nle", "import", str(run_dir), str(semi)]) == 3
    assert "the header is split by ';': save the file with commas" in capsys.readouterr().err


def test_ratings_of_another_runs_sample_are_refused_not_scored(run_dir, tmp_path, capsys):
    """Human S_E averages over the run's correctly answered explanations: a row rating an
    example the model got wrong, or another model's explanation of the same question (a copy
    filled for another run's sample), is a one-line error, not a silently different S_E."""
    sample_csv = tmp_path / "s.csv"
    assert main(["nle", "sample", str(run_dir), "--n", "4", "--out", str(sample_csv)]) == 0
    rows = [{**r, "annotator": "a", "rating": "yes"} for r in csv.DictReader(sample_csv.open())]
    wrong = next(r for r in _records(run_dir) if not r["correct"])

    def write(name, body):
        path = tmp_path / name
        with path.open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(body)
        return path

    incorrect = write("incorrect.csv", [*rows, {**rows[0], "example_id": wrong["id"], "rating": "no"}])
    other = write("other.csv", [rows[0], {**rows[1], "explanation": "another model's explanation"}])
    respaced = write("respaced.csv", [{**r, "explanation": "  " + r["explanation"].replace(" ", "\n ") + " "}
                                      for r in rows])
    capsys.readouterr()
    assert main(["nle", "import", str(run_dir), str(incorrect), "--out", str(tmp_path / "h.json")]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{incorrect}: row {len(rows) + 1}: field 'example_id'" in err
    assert "not answered correctly" in err
    assert main(["nle", "import", str(run_dir), str(other), "--out", str(tmp_path / "h.json")]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{other}: row 2: field 'explanation'" in err
    assert not (tmp_path / "h.json").exists()
    # A spreadsheet that re-wrapped the cell still names the same words: accepted, S_E = 1.
    assert main(["nle", "import", str(run_dir), str(respaced), "--out", str(tmp_path / "h.json")]) == 0
    assert json.loads((tmp_path / "h.json").read_text())["s_e"] == 1.0


def test_spearman_matches_scipy_and_known_values():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == (1.0, 0.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1])[0] == -1.0
    rho, p = spearman([1, 2, 2, 3, 5], [2, 1, 3, 3, 4])
    assert rho == pytest.approx(0.7631578947368421, abs=1e-12)  # average ranks for the ties
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, 80).astype(float)
    y = x + rng.normal(0, 2, 80)
    ref = stats.spearmanr(x, y)
    r2, p2 = spearman(x, y)
    assert r2 == pytest.approx(ref.statistic, abs=1e-12) and p2 == pytest.approx(ref.pvalue, rel=1e-9)


def test_imported_human_rows_get_their_own_table_3(run_dir):
    from vqa_harness_leaderboard import tables_of

    lines = (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    if not any(json.loads(line)["variant"] == "human" for line in lines if line.strip()):
        pytest.skip("runs after the round-trip test appended the human rows")
    titles = [t.title for ts in tables_of([run_dir]).values() for t in ts]
    assert "e-ViL human evaluation" in titles


class TwoTrainSets:
    """One dataset and split evaluated after two training sets: two nle tasks of one run."""

    @hookimpl
    def register_suites(self, register):
        opts = {"nle": {"metrics": "bleu1", "tokenize": "simple", "gt": False}}
        register(Suite("nle-two", "", tuple(Task("toyvqa:images=12", "val", ("nle",), train=(f"toyvqa:images={k}", "train"),
                                                 probe_options=opts) for k in (14, 16))))


def test_appending_one_tasks_human_rows_keeps_the_other_tasks(tmp_path, capsys):
    """`--append-results` replaces the human rows of the task it imports; those of another task
    on the same dataset and split (another training set) were dropped with them."""
    run = run_in_process(make_host(TwoTrainSets(), builtins=True), model="template-explainer", suite="nle-two",
                         tmp_path=tmp_path)
    assert run.exit_code == 0, run.probe_failures
    folder = run.rundir.path
    metas = sorted((folder / "artifacts" / "nle").rglob("*.meta.json"))
    tasks = [m.relative_to(folder / "artifacts" / "nle").as_posix()[: -len(".meta.json")] for m in metas]
    assert len(tasks) == 2
    for k, task in enumerate(tasks):
        sample = tmp_path / f"s{k}.csv"
        assert main(["nle", "sample", str(folder), "--task", task, "--n", "3", "--out", str(sample)]) == 0
        filled = tmp_path / f"f{k}.csv"
        with filled.open("w", newline="") as fh:
            rows = [{**r, "annotator": "a", "rating": "yes"} for r in csv.DictReader(sample.open())]
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        assert main(["nle", "import", str(folder), str(filled), "--task", task, "--append-results",
                     "--out", str(tmp_path / f"h{k}.json")]) == 0
    # Importing a task again replaces its rows, not adds to them.
    assert main(["nle", "import", str(folder), str(tmp_path / "f0.csv"), "--task", tasks[0], "--append-results",
                 "--out", str(tmp_path / "h0.json")]) == 0
    capsys.readouterr()
    rows = [json.loads(x) for x in (folder / "results.jsonl").read_text().splitlines() if x.strip()]
    human = sorted(r["train"] for r in rows if r["variant"] == "human" and r["metric"] == "s_e/human")
    assert human == ["toyvqa:images=14/train", "toyvqa:images=16/train"]


def test_appending_to_a_run_still_being_written_is_refused(run_dir, tmp_path, capsys):
    """Its process rewrites results.jsonl: human rows added meanwhile (or its rows, by ours) would be lost."""
    import fcntl
    import os

    sample_csv = tmp_path / "s.csv"
    assert main(["nle", "sample", str(run_dir), "--n", "3", "--out", str(sample_csv)]) == 0
    filled = tmp_path / "f.csv"
    with filled.open("w", newline="") as fh:
        rows = [{**r, "annotator": "a", "rating": "no"} for r in csv.DictReader(sample_csv.open())]
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    before = (run_dir / "results.jsonl").read_bytes()
    fd = os.open(run_dir / ".writer", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        capsys.readouterr()
        argv = ["nle", "import", str(run_dir), str(filled), "--out", str(tmp_path / "h.json")]
        assert main([*argv, "--append-results"]) == 3
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and f"{run_dir} is still being written (process {os.getpid()})" in err
        assert (run_dir / "results.jsonl").read_bytes() == before
        assert main(argv) == 0  # the summary alone changes nothing of the run's
    finally:
        os.ftruncate(fd, 0)
        os.close(fd)


@pytest.mark.parametrize("field, value, needle", [
    ("correct", "false", "field 'correct': expected true or false, got str 'false'"),  # was sampled as correct
    ("scores", {"cider": "x"}, "field 'scores.cider': expected a number, got str 'x'"),  # was a ValueError traceback
    ("explanation", 3, "field 'explanation': expected text")])
def test_records_of_the_wrong_shape_are_one_line(run_dir, tmp_path, capsys, field, value, needle):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    (path,) = (run / "artifacts" / "nle").rglob("*_val.jsonl")
    records = [json.loads(x) for x in path.read_text().splitlines()]
    k = next(i for i, r in enumerate(records) if (not r["correct"] if field == "correct" else "scores" in r))
    records[k][field] = value
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    capsys.readouterr()
    assert main(["nle", "sample", str(run), "--out", str(tmp_path / "s.csv")]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{path}: row {k + 1}: {needle}" in err, err
    assert not (tmp_path / "s.csv").exists()


def test_an_s_t_outside_zero_to_one_is_one_line_not_a_scaled_s_o(run_dir, tmp_path, capsys):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    (meta_path,) = (run / "artifacts" / "nle").rglob("*.meta.json")
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "s_t": 61.9}))  # a percentage: S_O came out as 61.9 * S_E
    capsys.readouterr()
    assert main(["nle", "sample", str(run), "--out", str(tmp_path / "s.csv")]) == 3
    err = capsys.readouterr().err.strip()
    assert err == f"error: {meta_path}: field 's_t': expected a fraction in [0, 1], got 61.9"


def test_sample_never_overwrites_a_filled_copy(run_dir, tmp_path, capsys):
    """`nle sample --out filled_a.csv` replaced an annotator's ratings with a blank sample."""
    sample_csv = tmp_path / "s.csv"
    assert main(["nle", "sample", str(run_dir), "--n", "3", "--out", str(sample_csv)]) == 0
    assert main(["nle", "sample", str(run_dir), "--n", "3", "--out", str(sample_csv)]) == 0  # a blank one: fine
    rows = [{**r, "annotator": "a", "rating": "weak yes"} for r in csv.DictReader(sample_csv.open())]
    filled = tmp_path / "filled_a.csv"
    with filled.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    before = filled.read_bytes()
    capsys.readouterr()
    assert main(["nle", "sample", str(run_dir), "--n", "3", "--out", str(filled)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"--out {filled} holds 3 filled rating(s)" in err
    assert filled.read_bytes() == before
    other = tmp_path / "filled_b.csv"  # import --out naming another annotator's copy, not an input
    other.write_bytes(before.replace(b",a,weak yes,", b",b,weak yes,"))
    assert main(["nle", "import", str(run_dir), str(filled), "--out", str(other)]) == 2
    assert f"--out {other} holds 3 filled rating(s)" in capsys.readouterr().err
    assert other.read_bytes() == before.replace(b",a,weak yes,", b",b,weak yes,")


def test_a_row_missing_from_one_annotators_copy_is_named_not_silent(run_dir, tmp_path, capsys):
    """Before, a copy with a row deleted was averaged over fewer ratings in silence
    ("20 explanations, 39 ratings by 2 annotators")."""
    sample_csv = tmp_path / "s.csv"
    assert main(["nle", "sample", str(run_dir), "--n", "4", "--out", str(sample_csv)]) == 0
    rows = list(csv.DictReader(sample_csv.open()))
    files = []
    for who, keep in (("ann", rows), ("bea", rows[:1] + rows[2:])):
        path = tmp_path / f"{who}.csv"
        with path.open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows({**r, "rating": "yes" if who == "ann" else "no"} for r in keep)
        files.append(str(path))
    capsys.readouterr()
    assert main(["nle", "import", str(run_dir), *files, "--out", str(tmp_path / "h.json")]) == 0
    out, err = capsys.readouterr()
    missing = rows[1]["example_id"]
    assert f"warning: {files[1]}: no row for {missing!r} (item {rows[1]['item']})" in err
    assert "1 to 2 ratings per explanation" in out
    summary = json.loads((tmp_path / "h.json").read_text())
    assert summary["ratings_per_item"] == {"min": 1, "max": 2}
    # the documented handling: each explanation is the mean of its own ratings
    assert summary["s_e"] == pytest.approx((1.0 + 0.5 * (len(rows) - 1)) / len(rows))
