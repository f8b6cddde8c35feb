"""`python -m harness.cli` (and `torchrun -m harness.cli run ...`)."""

from harness.cli import _entry

_entry()
