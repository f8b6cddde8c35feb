"""A leaderboard any probe can feed: a third-party probe, defined here and registered like any
plugin, declares its evidence, chart, names and docs link (`Probe.display()`), and the site
shows them (a column of the reliance table, a card line, a chart, readable names, the docs
link) with no change to the leaderboard, which names no probe or metric itself."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.api import ChartSpec, Display, Evidence, Model, Probe, ProbeContext
from harness.errors import PluginError
from harness.perexample import write_scores
from harness.stats import wilson_interval
from harness.testing import dataset_plugin, hookimpl, make_host, run_in_process, use_host
from harness.types import BLANK_IMAGE, Example, ResultRow
from vqa_harness_leaderboard import build_leaderboard

DOCS = "https://example.org/glance-probe/docs#flip"


class GlanceProbe(Probe):
    """Asks each question with the real image and with a dark one: share of answers that flip."""

    name = "glance"
    requires = ("answer",)

    def run(self, ctx: ProbeContext) -> list[ResultRow]:
        real = ctx.predict(ctx.examples, "answer")
        dark = ctx.predict([ex.with_(image=BLANK_IMAGE) for ex in ctx.examples], "answer", variant="dark")
        flips = [float((a.answer or "") != (b.answer or "")) for a, b in zip(real, dark)]
        write_scores(ctx, [ex.id for ex in ctx.examples], {"glance/flip": flips}, variant="dark")
        k, n = int(sum(flips)), len(flips)
        return [ctx.row("glance/flip", k / n, n, ci=wilson_interval(k, n), variant="dark")]

    @classmethod
    def display(cls) -> Display:
        return Display(
            title="Glance test (a third-party probe)", docs=DOCS,
            metric_names={"glance/flip": "answers flipped by a dark image"},
            evidence=(Evidence("flip", "Answers flipped by a dark image", "flipped, dark image", ("glance/flip",),
                               "dark", reading="share of answers that change when the image is dark; 0: ignored",
                               source="the glance probe", suites="glance-suite", role="direct", order=5),),
            charts=(ChartSpec("flips", "Answers flipped by a dark image, per model", axis="answers flipped (%)",
                              style="bars", metrics=("glance/flip",), panels=("variant",), categories="model"),),
        )


class Looker(Model):
    """Answers from the image: its colour word changes when the image is dark."""

    name = "looker"

    def answer(self, batch):
        return ["dark" if ex.image == BLANK_IMAGE else ("red" if int(ex.id[1:]) % 4 else "blue") for ex in batch]


class Blind(Model):
    """Answers from the question alone."""

    name = "blind"

    def answer(self, batch):
        return ["red" for _ in batch]


class _Plugin:
    @hookimpl
    def register_probes(self, register):
        register(GlanceProbe)

    @hookimpl
    def register_models(self, register):
        register(Looker)
        register(Blind)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("glance")
    questions = [Example(id=f"q{i}", question=f"what color is thing {i}?", image=f"img-{i}.png",
                         answers=("red",) * 10, answer_type="other") for i in range(80)]
    host = make_host(dataset_plugin("glance-data", {"val": questions}, suite="glance-suite", probes=("glance",)),
                     _Plugin(), names=["glance-data", "glance-plugin"])
    with use_host(host):
        for model in ("looker", "blind"):
            outcome = run_in_process(host, model=model, suite="glance-suite", tmp_path=root)
            assert outcome.exit_code == 0 and outcome.rows
    build_leaderboard([root / "runs"], root / "site")
    return root / "site"


def test_its_evidence_is_a_column_of_the_reliance_table_with_its_test(site: Path) -> None:
    html = (site / "index.html").read_text(encoding="utf-8")
    table = html[html.index('id="reliance-table"'):html.index("</table>", html.index('id="reliance-table"'))]
    assert ">flipped, dark image<" in table or ">flipped, dark image</a>" in table
    looker = table[table.index('data-model="looker"'):]
    blind = table[table.index('data-model="blind"'):]
    assert "uses the image" in looker[:looker.index("</tr>")] and "▲" in looker[:looker.index("</tr>")]
    row = blind[:blind.index("</tr>")]
    assert "no measurable use" in row and re.search(r"▼ p &lt; 0\.0005", row)  # tested, visible, not hover
    md = (site / "index.md").read_text(encoding="utf-8")
    assert md.startswith("# vqa-harness leaderboard\n\n## Does it use the image?")
    assert "flipped, dark image" in md.split("## Suite")[0]


def test_its_card_line_chart_names_and_docs_link(site: Path) -> None:
    html = (site / "index.html").read_text(encoding="utf-8")
    card = html[html.index('id="card-looker"'):]
    card = card[:card.index("</article>")]
    assert "Answers flipped by a dark image" in card and "share of answers that change" in card
    assert "uses the image: flipped, dark image significantly above 0" in card
    # Its chart, drawn from its declaration: one bar per model.
    svgs = sorted(p.name for p in (site / "charts").glob("glance-suite-flips-*.svg"))
    assert svgs and all(f'src="charts/{name}"' in html for name in svgs)
    svg = (site / "charts" / svgs[0]).read_text(encoding="utf-8")
    assert ">looker<" in svg and ">blind<" in svg and "answers flipped (%)" in svg
    # Its names: the table is titled and headed as the probe says, its docs linked.
    assert "Glance test (a third-party probe)" in html and "answers flipped by a dark image" in html
    assert f'href="{DOCS}"' in html
    model = (site / "models" / "looker.html").read_text(encoding="utf-8")
    assert "Answers flipped by a dark image" in model and f'href="{DOCS}"' in model


def test_harness_run_ends_with_the_table_and_the_path(tmp_path: Path, capsys, monkeypatch) -> None:
    # The closing lines of `harness run`: the reliance table (the publisher's summary, in blocks
    # that fit the terminal) and where index.html is.
    from vqa_harness_cli import main
    from vqa_harness_leaderboard import plugin as leaderboard_plugin

    questions = [Example(id=f"q{i}", question=f"what color is thing {i}?", image=f"img-{i}.png",
                         answers=("red",) * 10, answer_type="other") for i in range(40)]
    host = make_host(dataset_plugin("glance-data", {"val": questions}, suite="glance-suite", probes=("glance",)),
                     _Plugin(), leaderboard_plugin, names=["glance-data", "glance-plugin", "leaderboard"])
    monkeypatch.setenv("COLUMNS", "72")
    with use_host(host):
        assert main(["run", "--model", "looker", "--model", "blind", "--suite", "glance-suite", "--jobs", "1",
                     "--device", "cpu", "--out", str(tmp_path / "runs"), "--leaderboard", str(tmp_path / "lb"),
                     "--cache", str(tmp_path / "cache.sqlite")]) == 0
    out = capsys.readouterr().out
    tail = out[out.index("Does it use the image?"):]
    assert "flipped, dark image" in tail and "▲" in tail and "▼ p < 0.0005" in tail
    lines = tail.splitlines()
    assert next(ln for ln in lines if ln.startswith("looker")).split()[1:4] == ["uses", "the", "image"]
    assert max(len(ln) for ln in lines if str(tmp_path) not in ln) <= 72  # paths aside, it fits
    assert f"Leaderboard: {(tmp_path / 'lb' / 'index.html').resolve().as_uri()}" in tail


class _Misdeclared(GlanceProbe):
    name = "glance"
    declares = "display"

    @classmethod
    def display(cls) -> Display:
        if cls.declares == "display":  # a typo in the role: Evidence refuses it
            return Display(evidence=(Evidence("flip", "flipped", "flipped", ("glance/flip",), role="direkt"),))
        return super().display()

    @classmethod
    def layouts(cls):
        return ["not a layout"] if cls.declares == "layouts" else super().layouts()


@pytest.mark.parametrize("declares", ["display", "layouts"])
def test_a_probe_declaring_its_tables_wrongly_is_one_line_naming_its_plugin(declares, tmp_path: Path) -> None:
    class Plugin:
        @hookimpl
        def register_probes(self, register):
            register(type("Misdeclared", (_Misdeclared,), {"declares": declares}))

        @hookimpl
        def register_models(self, register):
            register(Blind)

    questions = [Example(id=f"q{i}", question="what color?", image=f"img-{i}.png", answers=("red",) * 10)
                 for i in range(4)]
    host = make_host(dataset_plugin("glance-data", {"val": questions}, suite="glance-suite", probes=("glance",)),
                     Plugin(), names=["glance-data", "bad-plugin"])
    with pytest.raises(PluginError, match=r"^plugin bad-plugin: probe 'glance' declares its tables wrongly: "
                                          r"(ValueError: evidence 'flip': role|TypeError: layouts\(\))") as err:
        run_in_process(host, model="blind", suite="glance-suite", tmp_path=tmp_path)
    assert "\n" not in str(err.value)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())  # before any work
