"""`python -m vqa_harness_cli` (and `torchrun -m vqa_harness_cli run ...`)."""

from vqa_harness_cli import _entry

_entry()
