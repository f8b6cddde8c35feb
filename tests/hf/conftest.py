"""Session fixtures for the HF adapter tests (tiny models built locally, no hub)."""

from helpers_hf import tiny_blip, tiny_llava, tiny_vilt, toy_examples  # noqa: F401  (fixtures)
