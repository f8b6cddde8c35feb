"""WordNet 3.0 and the POS tagger, installed offline into a temporary NLTK data folder."""

from __future__ import annotations

import gzip
import io
import os
import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.errors import ResourceError
from vqa_harness_plugins import nlp as resources
from vqa_harness_plugins.nlp import tagger as tagger_mod
from vqa_harness_plugins.nlp import wordnet_corpus as wordnet_mod

nltk_data = pytest.importorskip("nltk.data")

HAS_DEBIAN_WORDNET = all(
    (wordnet_mod.debian_dir() / f).is_file() for f in wordnet_mod.REQUIRED_FILES
)
HAS_APTAGGER = tagger_mod.aptagger_pickle() is not None
needs_wordnet = pytest.mark.skipif(
    not HAS_DEBIAN_WORDNET, reason="Debian wordnet-base / wordnet-sense-index not installed"
)
needs_aptagger = pytest.mark.skipif(not HAS_APTAGGER, reason="textblob-aptagger not installed")


@pytest.fixture(scope="module")
def module_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The harness cache of this module: `status` and `install` index the temporary installs
    (cache files named after their folders), which must not pile up in the session's cache."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(autouse=True)
def isolated_nltk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, module_cache: Path) -> None:
    """No NLTK data the machine happens to have (~/nltk_data, NLTK_DATA) leaks into a test."""
    monkeypatch.setattr(nltk_data, "path", [])
    monkeypatch.delenv("NLTK_DATA", raising=False)
    monkeypatch.setenv("VQA_HARNESS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("VQA_HARNESS_CACHE", str(module_cache))


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, module_cache: Path) -> Iterator[Path]:
    """One offline install shared by the module (WordNet copy ~1 s, tagger conversion ~0.5 s)."""
    target = tmp_path_factory.mktemp("nltk") / "nltk_data"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(nltk_data, "path", [])
        mp.delenv("NLTK_DATA", raising=False)
        mp.setenv("VQA_HARNESS_CACHE", str(module_cache))
        statuses = resources.install(target)
    by_name = {s.name: s for s in statuses}
    assert by_name["wordnet"].present == HAS_DEBIAN_WORDNET
    assert by_name["pos-tagger"].present == HAS_APTAGGER
    yield target


@pytest.fixture
def wn(installed: Path):
    if not HAS_DEBIAN_WORDNET:
        pytest.skip("Debian WordNet not installed")
    return resources.wordnet(installed)


# --- WordNet -------------------------------------------------------------------------


def test_lexnames_table_matches_the_man_page() -> None:
    if not wordnet_mod.MANPAGE.is_file():
        pytest.skip("lexnames(5WN) man page not installed")
    text = gzip.decompress(wordnet_mod.MANPAGE.read_bytes()).decode("utf-8")
    assert wordnet_mod.parse_lexnames_manpage(text) == wordnet_mod.LEXNAMES


def test_lexnames_file_format() -> None:
    content, _ = wordnet_mod.lexnames_text(manpage=None)
    lines = content.splitlines()
    assert len(lines) == 45
    assert lines[0] == "00\tadj.all\t3"
    assert lines[2] == "02\tadv.all\t4"
    assert lines[5] == "05\tnoun.animal\t1"
    assert lines[29] == "29\tverb.body\t2"
    assert lines[44] == "44\tadj.ppl\t3"


def test_manpage_parser_rejects_an_incomplete_table() -> None:
    with pytest.raises(ValueError, match="00..44"):
        wordnet_mod.parse_lexnames_manpage("00\tadj.all\tall adjective clusters\n")


@needs_wordnet
def test_wordnet_known_values(wn) -> None:
    assert wn.get_version() == "3.0"
    assert wn.synsets("dog")[0].name() == "dog.n.01"
    assert wn.synset("dog.n.01").lexname() == "noun.animal"
    assert wn.synset("run.v.01").lexname() == "verb.motion"
    cat, dog = wn.synset("cat.n.01"), wn.synset("dog.n.01")
    # The textbook example: 6/7 with NLTK's WUP on WordNet 3.0.
    assert cat.wup_similarity(dog) == pytest.approx(6 / 7, abs=1e-9)
    # Chao et al. 2018 (supplementary) quote WUP(lady, woman) ~ 0.632; WordNet 3.0 gives 12/19.
    assert wn.synset("lady.n.01").wup_similarity(wn.synset("woman.n.01")) == pytest.approx(
        12 / 19, abs=1e-9
    )


@needs_wordnet
def test_wordnet_morphy_and_sense_index(wn) -> None:
    assert wn.morphy("dogs") == "dog"
    assert wn.morphy("geese") == "goose"  # from noun.exc
    assert wn.morphy("ran", "v") == "run"  # from verb.exc
    assert wn.lemma_from_key("dog%1:05:00::").synset().name() == "dog.n.01"  # index.sense
    assert wn.synset("dog.n.01").lemmas()[0].count() == 42  # cntlist.rev


@needs_wordnet
def test_install_is_idempotent_and_records_its_source(installed: Path) -> None:
    data_noun = installed / "corpora" / "wordnet" / "data.noun"
    before = data_noun.stat().st_mtime_ns
    again = {s.name: s for s in resources.install(installed)}
    assert data_noun.stat().st_mtime_ns == before  # nothing copied a second time
    assert again["wordnet"].location == str(installed / "corpora" / "wordnet")
    assert again["wordnet"].source.startswith("debian wordnet-base")
    assert "WordNet 3.0" in again["wordnet"].source
    assert (installed / "corpora" / "wordnet" / "lexnames").read_text().count("\n") == 45


@needs_wordnet
def test_incomplete_copy_is_not_present_and_is_repaired(tmp_path: Path) -> None:
    target = tmp_path / "nltk_data"
    broken = target / "corpora" / "wordnet"
    broken.mkdir(parents=True)
    (broken / "data.noun").write_text("truncated")
    assert not resources.status(target)[0].present
    fixed = wordnet_mod.install_wordnet(target)
    assert fixed.present
    assert (broken / "lexnames").is_file()
    assert (broken / "data.noun").stat().st_size > 1_000_000


def test_status_of_an_empty_target_says_how_to_fix(tmp_path: Path) -> None:
    target = tmp_path / "empty"
    found = {s.name: s for s in resources.status(target)}
    assert set(found) == {"wordnet", "pos-tagger", "bertscore-model", "sense-vectors"}
    assert not found["sense-vectors"].present and "WordNet" in found["sense-vectors"].detail
    for name in ("wordnet", "pos-tagger"):
        assert not found[name].present
        assert found[name].location.startswith(str(target))
        assert "harness resources install" in found[name].detail
    with pytest.raises(
        ResourceError, match="WordNet is not installed; run `harness resources install`"
    ):
        resources.wordnet(target)
    with pytest.raises(ResourceError, match="not installed; run `harness resources install`"):
        resources.pos_tag(["a", "dog"], target)


@needs_wordnet
@needs_aptagger
def test_existing_nltk_data_comes_first(
    installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NLTK_DATA", str(installed))
    other = tmp_path / "other"
    found = {s.name: s for s in resources.install(other)}
    assert found["wordnet"].location == str(installed / "corpora" / "wordnet")
    assert found["wordnet"].source == f"existing NLTK data ({installed})"
    assert found["pos-tagger"].source == f"existing NLTK data ({installed})"
    assert not (other / "corpora").exists()  # nothing copied
    assert resources.pos_tag(["Is", "the", "dog", "white", "?"], other)[2] == ("dog", "NN")


def test_a_failed_download_falls_back_to_local_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import nltk

    calls: list[str] = []

    def offline_download(package: str, **kwargs: object) -> bool:
        calls.append(package)
        raise OSError("no network")

    monkeypatch.setattr(nltk, "download", offline_download)
    found = {s.name: s for s in resources.install(tmp_path / "t", allow_download=True)}
    assert calls == ["wordnet", "averaged_perceptron_tagger_eng"]
    assert found["wordnet"].present == HAS_DEBIAN_WORDNET
    assert found["pos-tagger"].present == HAS_APTAGGER
    if HAS_APTAGGER:
        assert found["pos-tagger"].source.startswith("textblob-aptagger")


def test_ensure_nltk_path_is_idempotent(tmp_path: Path) -> None:
    first = resources.ensure_nltk_path(tmp_path)
    resources.ensure_nltk_path(tmp_path)
    assert [str(p) for p in nltk_data.path].count(str(first)) == 1
    default = resources.ensure_nltk_path()
    assert default == tmp_path / "home" / "nltk_data"


# --- POS tagger ----------------------------------------------------------------------


@needs_aptagger
@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Is the dog white ?", ["VBZ", "DT", "NN", "JJ", "."]),
        ("What color is the dog ?", ["WP", "NN", "VBZ", "DT", "NN", "."]),
        (
            "How many people are in the picture ?",
            ["WRB", "JJ", "NNS", "VBP", "IN", "DT", "NN", "."],
        ),
        ("Is the woman wearing a red hat ?", ["VBZ", "DT", "NN", "VBG", "DT", "JJ", "NN", "."]),
        ("What sport is being played ?", ["WP", "NN", "VBZ", "VBG", "VBN", "."]),
    ],
)
def test_pos_tag_on_questions(installed: Path, question: str, expected: list[str]) -> None:
    tokens = question.split()
    tagged = resources.pos_tag(tokens, installed)
    assert [w for w, _ in tagged] == tokens
    assert [t for _, t in tagged] == expected


@needs_aptagger
def test_nltk_pos_tag_finds_the_converted_tagger(installed: Path) -> None:
    import nltk

    resources.ensure_nltk_path(installed)
    assert nltk.pos_tag(["Is", "the", "dog", "white", "?"]) == [
        ("Is", "VBZ"), ("the", "DT"), ("dog", "NN"), ("white", "JJ"), ("?", ".")
    ]  # fmt: skip


@needs_aptagger
def test_converted_json_holds_the_pickled_weights(installed: Path) -> None:
    import json

    weights, tagdict, classes = tagger_mod.load_aptagger_weights(tagger_mod.aptagger_pickle())
    folder = installed / tagger_mod.TAGGER_DIR
    names = tagger_mod.TAGGER_FILES
    assert json.loads((folder / names[2]).read_text()) == sorted(classes)
    assert json.loads((folder / names[1]).read_text()) == tagdict
    stored = json.loads((folder / names[0]).read_text())
    assert len(stored) == len(weights) > 50_000
    assert stored["i suffix ing"] == weights["i suffix ing"]
    assert len(classes) == 45 and {"NN", "VBZ", "WP", "JJ"} <= classes


# --- Restricted unpickler ------------------------------------------------------------


class _RunsCommand:
    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):  # what a tampered weights file would contain
        return (os.system, (self.command,))


@pytest.mark.parametrize("protocol", [0, 2, pickle.HIGHEST_PROTOCOL])
def test_restricted_unpickler_refuses_os_system(tmp_path: Path, protocol: int) -> None:
    marker = tmp_path / "pwned"
    payload = pickle.dumps(({"w": {}}, {}, _RunsCommand(f"touch {marker}")), protocol=protocol)
    assert b"system" in payload
    with pytest.raises(
        pickle.UnpicklingError, match=r"refusing to load global (posix|os|nt)\.system"
    ):
        tagger_mod.restricted_load(payload)
    bad = tmp_path / "trontagger-evil.pickle"
    bad.write_bytes(payload)
    with pytest.raises(ResourceError, match=r"trontagger-evil\.pickle: refusing to load global"):
        tagger_mod.load_aptagger_weights(bad)
    assert not marker.exists()


def test_restricted_unpickler_refuses_eval_and_classes() -> None:
    eval_payload = b"cbuiltins\neval\n(S'1+1'\ntR."
    with pytest.raises(pickle.UnpicklingError, match="builtins.eval"):
        tagger_mod.restricted_load(eval_payload)
    from collections import OrderedDict

    with pytest.raises(pickle.UnpicklingError, match="collections.OrderedDict"):
        tagger_mod.restricted_load(pickle.dumps(OrderedDict(a=1)))


def test_restricted_unpickler_loads_plain_data() -> None:
    data = ({"bias": {"NN": 1.5}}, {"the": "DT"}, {"NN", "DT"}, frozenset({1}), [1, (2, 3)])
    for protocol in (0, 2, pickle.HIGHEST_PROTOCOL):
        assert tagger_mod.restricted_load(pickle.dumps(data, protocol=protocol)) == data
    # Python 2 pickles name the module `__builtin__`.
    assert tagger_mod.restricted_load(io.BytesIO(b"c__builtin__\nset\n((lp0\nS'a'\natR.")) == {"a"}


def test_wrong_shaped_weights_are_a_resource_error(tmp_path: Path) -> None:
    path = tmp_path / "weights.pickle"
    path.write_bytes(pickle.dumps(({"bias": {"NN": "x"}}, {}, {"NN"}), protocol=2))
    with pytest.raises(ResourceError, match="weights.pickle: not averaged-perceptron weights"):
        tagger_mod.load_aptagger_weights(path)
    path.write_bytes(b"not a pickle")
    with pytest.raises(ResourceError, match="weights.pickle"):
        tagger_mod.load_aptagger_weights(path)


def test_missing_wordnet_files_say_which_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WNSEARCHDIR", str(tmp_path / "no-wordnet"))
    result = wordnet_mod.install_wordnet(tmp_path / "t")
    assert not result.present
    assert "lacks data.noun" in result.detail
    assert "apt-get install wordnet-base wordnet-sense-index" in result.detail
    assert "apt-get install" in resources.status(tmp_path / "t")[0].detail
    assert not (tmp_path / "t" / "corpora").exists()
