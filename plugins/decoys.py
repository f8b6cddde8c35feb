"""Plugin `decoys`: Chao et al. 2018, "Being Negative but Constructively" (docs/decoys.md).

Datasets with decoy sets (`visual7w`, `visual-genome-qa`, `vqa1-mc`, `vqa2-mc`, toy
`toyvqa-mc`), the MLP-A/QA/IA/IQA ablation models, probes `decoys` and `decoy-audit`, the
toy `decoys` suite, the real-data suites `decoys-visual7w`, `decoys-vqa1`, `decoys-vqa2`,
`decoys-vg`, and `harness decoys generate`.
"""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .datasets.multiple_choice import VQA1MC, VQA2MC, ToyVQAMC, Visual7W, VisualGenomeQA
from .models.coattention import HieCoAttMC
from .models.mlp import MLPA, MLPIA, MLPIQA, MLPQA
from .models.spatial_attention import SpatialAttentionMC
from .probes.decoys import DECOYS_SUITE, REAL_DECOY_SUITES, DecoyAuditProbe, DecoyProbe
from .probes.decoys.command import decoys


@hookimpl
def register_datasets(register) -> None:
    """Register the decoy datasets."""
    for cls in (Visual7W, VisualGenomeQA, VQA1MC, VQA2MC, ToyVQAMC):
        register(cls)


@hookimpl
def register_models(register) -> None:
    """Register MLP-A, MLP-QA, MLP-IA, MLP-IQA, Attention* (`attention-mc`) and HieCoAtt* (`hiecoatt-mc`)."""
    for cls in (MLPA, MLPQA, MLPIA, MLPIQA, SpatialAttentionMC, HieCoAttMC):
        register(cls)


@hookimpl
def register_probes(register) -> None:
    """Register `decoys` and `decoy-audit`."""
    register(DecoyProbe)
    register(DecoyAuditProbe)


@hookimpl
def register_suites(register) -> None:
    """Register `decoys` (toy) and the real-data suites decoys-visual7w/-vqa1/-vqa2/-vg."""
    for suite in (DECOYS_SUITE, *REAL_DECOY_SUITES):
        register(suite)


@hookimpl
def register_commands(register) -> None:
    """Register `harness decoys`."""
    register(decoys)
