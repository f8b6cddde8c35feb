"""Decoys (Chao et al. 2018): the `decoys` and `decoy-audit` probes, their table layouts,
the toy `decoys` suite, the real-data suites (suites.py) and `harness decoys generate`.
See docs/decoys.md."""

from __future__ import annotations

from vqa_harness_plugins.generators.decoys import VARIANTS

from .probe import ABLATIONS, DecoyAuditProbe, DecoyProbe, mc_variant_examples, pick_scores
from .suites import REAL_DECOY_SUITES, decoy_suite

__all__ = ["DecoyProbe", "DecoyAuditProbe", "DECOYS_SUITE", "REAL_DECOY_SUITES", "ABLATIONS", "decoy_suite",
           "mc_variant_examples", "pick_scores"]

DECOYS_SUITE = decoy_suite("decoys", "toyvqa-mc", VARIANTS, "val",
                           "Chao et al. 2018 on the toy benchmark: train and test on each decoy set, ablations, "
                           "audit", toy=True)
