"""Suites from files (vqa_harness_cli.suitefiles.read), `harness show`, and the suite-file docs."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from harness.api import Suite, Task
from harness.errors import UsageError
from harness.host import PluginHost, reset_host
from harness.suites import resolve_suite, suite_names
from vqa_harness_cli import main
from vqa_harness_cli.suitefiles import suite_from_command_line
from vqa_harness_cli.suitefiles.read import load_suite_file, parse_suite
from vqa_harness_cli.suitefiles.write import dump_suite, suite_data

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "suites.md"


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(blocked=frozenset())


@pytest.fixture(autouse=True)
def _fresh_cli_host():
    reset_host(None)
    yield
    reset_host(None)


def write(tmp_path: Path, text: str, name: str = "suite.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# ------------------------------------------------------------------ round trip


def test_every_registered_suite_round_trips_through_its_yaml(host, tmp_path):
    names = suite_names(host)
    assert {"toy", "goyal", "decoys", "e-vil", "e-vil-toy"} <= set(names)
    for name in names:
        suite = resolve_suite(host, name)
        path = tmp_path / f"{name}.yaml"
        path.write_text(dump_suite(suite, host, header="test"), encoding="utf-8")
        assert load_suite_file(path, host) == suite, name


def test_show_suite_prints_the_file_the_loader_reads(tmp_path, capsys):
    assert main(["show", "suite", "goyal"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# Suite 'goyal' (plugin 'balanced')")
    path = write(tmp_path, text)
    host = PluginHost(blocked=frozenset())
    assert load_suite_file(path, host) == host.suites["goyal"]
    # the task with probe options and a train source, as YAML
    assert "  probe_options:\n    language-prior: {compare_to: vqa1/val}\n" in text
    assert "  train: {dataset: vqa2-half, split: train}\n" in text


def test_a_label_with_a_next_line_character_round_trips(host, tmp_path):
    """PyYAML writes U+0085 (NEL) single-quoted, which YAML reads back as a line break
    folded into a space; the file must give back the same label."""
    suite = Suite("nel", "d\x85e", (Task("toyvqa:variant=balanced", "val", ("accuracy",), label="a\x85b é"),))
    assert load_suite_file(write(tmp_path, dump_suite(suite, host)), host) == suite


def test_dataset_options_keep_their_order_types_and_text(host, tmp_path):
    suite = Suite("opts", "", (Task("toyvqa:variant=balanced,images=40,size=32", "val", ("accuracy",),
                                    train=("toyvqa-half:images=40", "train"), label="x"),))
    text = dump_suite(suite, host)
    assert "options: {variant: balanced, images: 40, size: 32}" in text
    assert load_suite_file(write(tmp_path, text), host) == suite


def test_toml_and_inline_specs_load_like_yaml(host, tmp_path):
    toml = write(tmp_path, """\
        name = "acc-toml"
        description = "one task"

        [[tasks]]
        label = "balanced"
        dataset = "toyvqa"
        options = { variant = "balanced", images = 40 }
        split = "val"
        probes = ["accuracy", "pairs"]
        train = { dataset = "toyvqa:variant=balanced,images=40", split = "train" }
        """, "s.toml")
    yaml = write(tmp_path, """\
        name: acc-toml
        description: one task
        tasks:
        - {label: balanced, dataset: "toyvqa:variant=balanced", options: {images: 40}, split: val,
           probes: [accuracy, pairs], train: {dataset: toyvqa, options: {variant: balanced, images: 40}, split: train}}
        """)
    a, b = load_suite_file(toml, host), load_suite_file(yaml, host)
    assert a == b
    assert a.tasks[0] == Task("toyvqa:variant=balanced,images=40", "val", ("accuracy", "pairs"),
                              ("toyvqa:variant=balanced,images=40", "train"), "balanced", {})


def test_probe_options_are_checked_and_typed(host, tmp_path):
    path = write(tmp_path, """\
        name: nle-cheap
        tasks:
        - dataset: toyvqa
          split: val
          probes: [nle]
          probe_options: {nle: {metrics: "bleu1,cider", gt: false, bertscore_batch: 8}}
        """)
    task = load_suite_file(path, host).tasks[0]
    assert dict(task.probe_options["nle"]) == {"metrics": "bleu1,cider", "gt": False, "bertscore_batch": 8}


def test_a_registered_name_wins_and_a_file_is_found_by_path(host, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "goyal").write_text("not: [a suite", encoding="utf-8")
    assert resolve_suite(host, "goyal") is host.suites["goyal"]
    plain = write(tmp_path, "name: plain\ntasks: [{dataset: toyvqa, split: val, probes: [accuracy]}]\n", "plain")
    assert suite_from_command_line(host, str(plain)).name == "plain"
    with pytest.raises(UsageError, match=r"unknown suite 'goyl'; did you mean: goyal.*suite file"):
        suite_from_command_line(host, "goyl")


def test_reusing_a_registered_name_needs_the_same_tasks(host, tmp_path):
    same = dict(suite_data(host.suites["goyal"], host), description="my copy")
    assert parse_suite(same, host).tasks == host.suites["goyal"].tasks
    other = dict(same, tasks=same["tasks"][:1])
    with pytest.raises(UsageError, match=r"^f\.yaml: field 'name': 'goyal' is a registered suite with other tasks"):
        parse_suite(other, host, source="f.yaml")


# ------------------------------------------------------------------ bad files: one line, exit 2

GOOD_TASK = "{dataset: toyvqa, split: val, probes: [accuracy]}"
MALFORMED = {
    "wrong type": ("name: s\ntasks:\n- {dataset: toyvqa, split: val, probes: accuracy}\n",
                   "tasks[0]: field 'probes': expected a non-empty list of probe names, got str 'accuracy'"),
    "unknown key": (f"name: s\ntasks:\n- {GOOD_TASK}\n- {{dataset: toyvqa, split: val, probe: [pairs]}}\n",
                    "tasks[1]: field 'probe': unknown key; keys: label, dataset, options, split, probes, "
                    "probe_options, train; did you mean: probes, probe_options?"),
    "empty task list": ("name: s\ntasks: []\n", "field 'tasks': empty: a suite needs at least one task"),
    "missing field": ("name: s\ntasks:\n- {dataset: toyvqa, probes: [accuracy]}\n",
                      "tasks[0]: field 'split': missing (required)"),
    "unknown dataset": ("name: s\ntasks:\n- {dataset: vqa3, split: val, probes: [accuracy]}\n",
                        "tasks[0]: field 'dataset': unknown dataset 'vqa3'; did you mean: vqa2"),
    "unknown probe": ("name: s\ntasks:\n- {dataset: toyvqa, split: val, probes: [accuracy, paris]}\n",
                      "tasks[0]: field 'probes[1]': unknown probe 'paris'; did you mean: pairs"),
    "probe without its field": ("name: s\ntasks:\n- {dataset: vqa1, split: val, probes: [accuracy, pairs]}\n",
                                "tasks[0]: field 'probes[1]': probe 'pairs' needs pair_id, which dataset 'vqa1' "
                                "does not provide"),
    "nle without explanations": ("name: s\ntasks:\n- {dataset: vqa2, split: val, probes: [nle]}\n",
                                 "tasks[0]: field 'probes[0]': probe 'nle' needs explanations, which dataset "
                                 "'vqa2' does not provide"),
    "bad dataset option": ("name: s\ntasks:\n- {dataset: toyvqa, options: {variant: balancd}, split: val, "
                           "probes: [accuracy]}\n",
                           "tasks[0]: field 'options': dataset 'toyvqa': option variant='balancd' must be one of"),
    "no such split": ("name: s\ntasks:\n- {dataset: toyvqa, split: test, probes: [accuracy]}\n",
                      "tasks[0]: field 'split': dataset 'toyvqa' has no split 'test'; splits: train, val"),
    "options of another probe": ("name: s\ntasks:\n- {dataset: toyvqa, split: val, probes: [accuracy], "
                                 "probe_options: {nle: {gt: false}}}\n",
                                 "tasks[0]: field 'probe_options.nle': 'nle' is not among the task's probes"),
    "bad probe option": ("name: s\ntasks:\n- {dataset: toyvqa, split: val, probes: [nle], "
                         "probe_options: {nle: {bertscore_batch: 0}}}\n",
                         "tasks[0]: field 'probe_options.nle': probe 'nle': option bertscore_batch=0 is out of range"),
    "train without split": ("name: s\ntasks:\n- {dataset: toyvqa, split: val, probes: [accuracy], "
                            "train: {dataset: toyvqa}}\n", "tasks[0]: field 'train.split': missing (required)"),
    "bad name": ("name: my suite\ntasks:\n- " + GOOD_TASK + "\n", "field 'name': expected a name of letters"),
    "not a mapping": ("- " + GOOD_TASK + "\n", "expected a mapping with name, description and tasks, got list"),
    "YAML syntax": ("name: s\ntasks: [\n", "line 3 column 1: not valid YAML"),
    "repeated key": ("name: s\nname: t\ntasks:\n- " + GOOD_TASK + "\n",
                     "line 2 column 1: not valid YAML (key 'name' appears twice in one mapping)"),
    "list as a key": ("name: s\n[a, b]: 1\ntasks:\n- " + GOOD_TASK + "\n",
                      "line 2 column 1: a list cannot be a key in a suite file (keys are names)"),
    "mapping as a key": ("name: s\ntasks:\n- {dataset: toyvqa, split: val, probes: [accuracy], {a: 1}: 2}\n",
                         "line 3 column 53: a mapping cannot be a key in a suite file (keys are names)"),
    "bad merge key": ("name: s\ntasks:\n- <<: 5\n  dataset: toyvqa\n",
                      "line 3 column 7: not valid YAML (expected a mapping or list of mappings for merging, "
                      "but found scalar)"),
    "repeated key beside a merge": ("name: s\ntasks:\n- <<: {split: val}\n  dataset: toyvqa\n  dataset: vqa2\n",
                                    "line 5 column 3: not valid YAML (key 'dataset' appears twice in one mapping)"),
    "long description": ("name: s\ndescription: " + "x" * 10_001 + "\ntasks:\n- " + GOOD_TASK + "\n",
                         "field 'description': 10,001 characters; at most 10,000 (every run's manifest copies it)"),
    "task not a mapping": ("name: s\ntasks: [accuracy]\n",
                           "tasks[0]: expected a mapping (dataset, split, probes, ...), got str 'accuracy'"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_suite_files_are_one_line_usage_errors(case, tmp_path, capsys):
    text, expected = MALFORMED[case]
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    code = main(["run", "--model", "prior", "--suite", str(path), "--no-leaderboard", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"error: {path}: "), err
    assert expected in err, err
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").iterdir())  # nothing started


def test_yaml_merge_keys_work_as_yaml_defines_them(host, tmp_path):
    """`<<: *anchor` merges a mapping; the task's own keys win over merged ones."""
    path = write(tmp_path, """\
        name: merged
        tasks:
        - &base {dataset: toyvqa, split: val, probes: [accuracy]}
        - <<: *base
          label: on-train
          split: train
        """)
    suite = load_suite_file(path, host)
    assert [(t.label, t.dataset, t.split, t.probes) for t in suite.tasks] == [
        ("", "toyvqa", "val", ("accuracy",)), ("on-train", "toyvqa", "train", ("accuracy",))]


def test_an_oversized_suite_file_is_refused_before_it_is_parsed(tmp_path, capsys):
    path = tmp_path / "big.yaml"
    path.write_text("name: s\n# " + "x" * (1024 * 1024) + "\ntasks: []\n", encoding="utf-8")
    code = main(["run", "--model", "prior", "--suite", str(path), "--no-leaderboard", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err == (f"error: {path}: 1,048,597 bytes; a suite file is at most 1,048,576 bytes (it lists "
                                 "tasks; data files are read from --data-dir)")


def test_registered_suites_get_the_cannot_feed_check(tmp_path):
    """A registered suite pairing a probe with a dataset that lacks a field it needs is a
    plugin bug: one PluginError line naming the suite and its plugin, before any work."""
    from harness.errors import PluginError
    from harness.hookspecs import hookimpl
    from harness.suites import check_feeds, resolve_suite, suite_names
    from harness.testing import make_host, run_in_process

    class Bad:
        @hookimpl
        def register_suites(self, register):
            register(Suite("vqax-pairs", "", (Task("toyvqa", "val", ("accuracy",)), Task("vqa-x", "val", ("pairs",)))))

    host = make_host(Bad(), builtins=True, names=["bad-suites"])
    with pytest.raises(PluginError) as err:
        run_in_process(host, model="prior", suite="vqax-pairs", tmp_path=tmp_path)
    assert str(err.value).startswith("suite 'vqax-pairs' (plugin 'bad-suites'), tasks[1] (vqa-x/val): probe 'pairs' "
                                     "needs pair_id, which dataset 'vqa-x' does not provide")
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
    for name in suite_names(host):  # every built-in suite passes, `toy` included
        if name != "vqax-pairs":
            check_feeds(resolve_suite(host, name), host)


def test_toml_on_python_3_10_reads_with_tomli(host, tmp_path, monkeypatch):
    """Without tomllib (Python 3.10) the tomli backport parses the file; pyproject declares
    it for those versions (requires-python >= 3.10)."""
    import sys
    import types

    import tomllib

    used = []
    tomli = types.ModuleType("tomli")
    tomli.TOMLDecodeError = tomllib.TOMLDecodeError
    tomli.loads = lambda text: used.append(text) or tomllib.loads(text)
    monkeypatch.setitem(sys.modules, "tomllib", None)  # `import tomllib` raises ModuleNotFoundError
    monkeypatch.setitem(sys.modules, "tomli", tomli)
    path = write(tmp_path, 'name = "t"\n[[tasks]]\ndataset = "toyvqa"\nsplit = "val"\nprobes = ["accuracy"]\n',
                 "t.toml")
    assert load_suite_file(path, host).tasks == (Task("toyvqa", "val", ("accuracy",)),) and len(used) == 1
    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    assert pyproject["requires-python"] == ">=3.10"
    assert "tomli>=1.1; python_version < '3.11'" in pyproject["dependencies"]


def test_toml_errors_and_missing_files_are_one_line_usage_errors(tmp_path, capsys):
    bad = write(tmp_path, 'name = "s"\ntasks = [\n', "s.toml")
    for suite, expected in ((str(bad), f"error: {bad}: not valid TOML ("),
                            (str(tmp_path / "nope.yaml"), f"error: suite file {tmp_path / 'nope.yaml'} not found")):
        code = main(["run", "--model", "prior", "--suite", suite, "--no-leaderboard", "--out", str(tmp_path / "r")])
        err = capsys.readouterr().err.strip()
        assert code == 2 and len(err.splitlines()) == 1 and err.startswith(expected), err


# ------------------------------------------------------------------ docs/suites.md


def doc_examples() -> list[tuple[str, str]]:
    """(language, text) of every suite file in docs/suites.md (blocks starting with `name`)."""
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```(yaml|toml)\n(.*?)```", text, flags=re.S)
    return [(lang, body) for lang, body in blocks if re.match(r"(# .*\n)*name\s*[:=]", body)]


def test_every_suite_file_in_the_docs_loads(host, tmp_path):
    examples = doc_examples()
    assert len(examples) >= 5
    names = set()
    for i, (lang, body) in enumerate(examples):
        suite = load_suite_file(write(tmp_path, body, f"ex{i}.{lang}"), host)
        names.add(suite.name)
        for task in suite.tasks:  # the names resolve (a run checks them again)
            assert task.dataset.split(":")[0] in host.datasets and all(p in host.probes for p in task.probes)
    # one per paper at least
    used = {p for _, body in examples for p in ("balanced-accuracy", "decoys", "nle", "counterfactual") if p in body}
    assert used == {"balanced-accuracy", "decoys", "nle", "counterfactual"}


def test_the_toy_example_of_the_docs_runs_end_to_end(tmp_path, capsys):
    body = next(body for lang, body in doc_examples() if "name: quick-toy" in body)
    path = write(tmp_path, body, "quick-toy.yaml")
    out = tmp_path / "runs"
    code = main(["run", "--model", "prior", "--suite", str(path), "--no-leaderboard", "--out", str(out),
                 "--device", "cpu"])
    assert code == 0, capsys.readouterr().err
    (rundir,) = out.iterdir()
    rows = [json.loads(line) for line in (rundir / "results.jsonl").read_text().splitlines()]
    metrics = {(r["probe"], r["metric"]) for r in rows}
    assert ("accuracy", "vqa_accuracy") in metrics and ("pairs", "pair/both_correct") in metrics
    assert {r["suite"] for r in rows} == {"quick-toy"}


def test_datasets_md_points_to_a_suite_file_that_exists():
    text = (ROOT / "docs" / "datasets.md").read_text(encoding="utf-8")
    assert "--suite my-suite " not in text and "--suite my-suite\n" not in text
    assert "docs/suites.md" in text or "suites.md" in text


# ------------------------------------------------------------------ harness show


def test_show_dataset_probe_and_model_print_their_options(capsys):
    assert main(["show", "dataset", "vqa2"]) == 0
    out = capsys.readouterr().out
    assert "provides: answer_type, answers, label, pair_id, question_type" in out
    assert "release: VQA v2" in out and "https://visualqa.org/download.html" in out
    assert re.search(r"^duplicates +error +error \| keep-first +a repeated question_id", out, flags=re.M)
    assert main(["show", "probe", "nle"]) == 0
    out = capsys.readouterr().out
    assert "model capabilities: explain and one of answer, score_choices" in out
    assert "example fields: explanations" in out
    assert re.search(r"^bertscore_batch +64 +1\.\.65_536 +BERTScore batch size", out, flags=re.M)
    assert main(["show", "model", "qonly"]) == 0
    out = capsys.readouterr().out
    assert "capabilities: answer, fit, score_choices" in out
    assert re.search(r"^epochs +8 +1\.\.1000 +passes over the train split", out, flags=re.M)
    assert "trained_on" not in out  # trained by the harness: it declares nothing
    assert main(["show", "model", "predictions"]) == 0
    assert re.search(r"^trained_on +'' +a dataset name +\(every pretrained model\) the training data it declares",
                     capsys.readouterr().out, flags=re.M)


def test_show_unknown_names_say_did_you_mean(capsys):
    assert main(["show", "probe", "paris"]) == 2
    assert capsys.readouterr().err.strip() == "error: unknown probe 'paris'; did you mean: pairs?"
    assert main(["show", "suite", "goyl"]) == 2
    assert "did you mean: goyal" in capsys.readouterr().err
