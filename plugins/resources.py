"""Plugin `resources`: `harness resources install|status`, the offline NLP resources that the
decoy generator, the counterfactual generator and e-ViL's metrics read: WordNet 3.0, the
English POS tagger, word statistics and a BERTScore model (docs/resources.md). The resources
themselves are the public module `vqa_harness_plugins.nlp`."""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .nlp.command import resources


@hookimpl
def register_commands(register) -> None:
    """Register `harness resources`."""
    register(resources)
