"""`--limit` reaches the decoy datasets: decoys are generated for the kept questions only,
from the whole split as candidates, and each kept question gets its full-run decoys."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from test_decoys_generate import fake_wup

from harness.data.session import Session
from harness.testing import make_host
from vqa_harness_plugins.generators.decoys import DecoyConfig, QARecord, generate_decoys

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites"))
from helpers_official import write_visual7w, write_vqa  # noqa: E402

NOUNS = ("car", "bus", "dog", "cat", "tree", "table", "sky", "fence", "boat", "kite", "horse", "plate")
ANSWERS = ("red", "blue", "green", "white", "black", "two", "three", "wood", "metal", "yes", "no", "grass",
           "water", "pizza", "frisbee", "umbrella", "snow", "sand")


def varied_records(n_images: int = 120, seed: int = 1) -> list[QARecord]:
    """About 500 triplets over ~100 distinct questions."""
    rng = random.Random(seed)
    out = []
    for i in range(n_images):
        for j in range(rng.randint(2, 6)):
            q = f"What {rng.choice(('color', 'kind', 'part'))} of {rng.choice(NOUNS)} is {rng.choice(('this', 'shown', 'here'))}?"
            out.append(QARecord(f"{i}-{j}", f"img{i}", q, rng.choice(ANSWERS)))
    return out


@pytest.mark.parametrize("n", [1, 17, 100])
@pytest.mark.parametrize("n_qou", [3, 14])  # 14: a second, deeper neighbour pass for most questions
def test_only_the_kept_records_get_decoys_and_exactly_their_full_run_decoys(n, n_qou):
    records = varied_records()
    config = DecoyConfig(seed=5, n_qou=n_qou)
    full = generate_decoys(records, config, wup=fake_wup)
    assert len(full.stats.neighbour_depth) == (2 if n_qou == 14 else 1)
    kept = [r.qa_id for r in records[:n]]
    part = generate_decoys(records, config, wup=fake_wup, only=kept)
    assert list(part.sets) == kept
    assert {q: part.sets[q] for q in kept} == {q: full.sets[q] for q in kept}
    assert part.stats.questions == n and full.stats.questions == len(records)


@pytest.fixture
def spy(monkeypatch):
    """Records the `only` argument of every generation."""
    import vqa_harness_plugins.datasets.multiple_choice.mc as mc

    calls = []
    real = mc.generate_decoys

    def spying(records, config, **kw):
        calls.append((len(records), None if kw.get("only") is None else len(kw["only"])))
        return real(records, config, **kw)

    monkeypatch.setattr(mc, "generate_decoys", spying)
    return calls


def _decoys(examples):
    return [(ex.id, ex.choices, ex.meta["decoys"], ex.meta.get("decoy_sources")) for ex in examples]


@pytest.mark.parametrize("spec,split,writer", [
    ("visual7w:decoys=iou+qou,decoy_file=", "test", lambda root: write_visual7w(root, 40, released=False)),
    ("vqa2-mc:decoys=iou+qou", "val", lambda root: write_vqa(root, version=2, split="val", n_images=20, seed=0)),
])
def test_session_limit_generates_decoys_for_the_kept_questions_only(tmp_path, fresh_cache, spy, spec, split,
                                                                     writer):
    writer(tmp_path)
    host = make_host(builtins=True)
    limited = Session(host, data_dir=tmp_path, limit=4).load(spec, split, limit=True)
    assert len(limited) == 4
    pool = spy[0][0]
    assert spy == [(pool, 4)] and pool > 4  # the whole split is the candidate pool
    spy.clear()
    full = Session(host, data_dir=tmp_path).load(spec, split)
    assert spy == [(pool, None)]
    assert _decoys(limited) == _decoys(full[:4])
    # A limited load after the full generation is cached reuses it (no new generation).
    spy.clear()
    again = Session(host, data_dir=tmp_path, limit=3).load(spec, split, limit=True)
    assert spy == [] and _decoys(again) == _decoys(full[:3])
