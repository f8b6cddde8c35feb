"""Automatic decoys for multiple-choice VQA (Chao et al. 2018; docs/decoys.md).

- `generate_decoys(records, DecoyConfig(...))`: QoU and IoU decoys with the paper's
  filters, deterministic for a seed; `DecoyResult.released()` gives the released JSON shape.
- `read_decoy_file` / `write_decoy_file`: the authors' released format, checked.
- `variant_choices`, `eq2_rule`, `neutrality`: decoy-set variants (Orig, IoU, QoU, IoU+QoU,
  All) and the model-free shortcut audit.
See docs/decoys.md.
"""

from __future__ import annotations

from .files import read_decoy_file, write_decoy_file
from .generate import (
    EMPTY_TARGETS,
    DecoyConfig,
    DecoyResult,
    DecoySet,
    GenerationStats,
    QARecord,
    default_wup,
    generate_decoys,
    validate_records,
)
from .text import normalize_for_match, normalize_release, overlaps
from .variants import (
    VARIANT_LABELS,
    VARIANTS,
    Eq2Rule,
    eq2_rule,
    neutrality,
    variant_choices,
    variant_parts,
)

__all__ = [
    "DecoyConfig",
    "EMPTY_TARGETS",
    "DecoyResult",
    "DecoySet",
    "GenerationStats",
    "QARecord",
    "VARIANTS",
    "VARIANT_LABELS",
    "Eq2Rule",
    "default_wup",
    "eq2_rule",
    "generate_decoys",
    "neutrality",
    "normalize_for_match",
    "normalize_release",
    "overlaps",
    "read_decoy_file",
    "validate_records",
    "variant_choices",
    "variant_parts",
    "write_decoy_file",
]
