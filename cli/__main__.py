"""`python -m vqa_harness_cli` (and `torchrun -m vqa_harness_cli run ...`)."""

from . import _entry

_entry()
