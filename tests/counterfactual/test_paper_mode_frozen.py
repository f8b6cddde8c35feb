"""The paper mode is frozen: `harness perturb --mode paper` writes the same bytes as before
issue 24 changed the quality mode (senses, idioms, readable colors, verb frames).

The digests were taken with the code of commit 5bc6c82 (main before issue 24) on the real
VQA-X val and e-SNLI-VE dev files of ../shared/data, seeds 0 and 7, every kind:

    harness perturb --dataset vqa-x --data-dir ../shared/data --mode paper [--seed 7] --out F
    harness perturb --dataset e-snli-ve --split dev --data-dir ../shared/data --mode paper --out F
    sha256sum F

e-SNLI-VE dev's digest changed once since, on purpose: 9 synonym_verb rows whose replacement
came back as the word itself ("bathing" -> bath -> "bathing", "installed" -> install ->
"installed": the question unchanged) are no counterfactuals; 8 questions are now skipped
(`no_replacement`), 1 takes its other verb (test_perturb_generators.py,
test_a_replacement_that_reads_as_the_word_itself_is_no_counterfactual).
"""

from __future__ import annotations

import hashlib

import pytest

from harness.host import reset_host
from vqa_harness_cli import main

FROZEN = {
    ("vqa-x", "val", 0): "da171bf5fbea7b831c4deb456b01c00e00bbf314635ce7b873095675b455cbd9",
    ("vqa-x", "val", 7): "4f971061671b7ada2870cfcf0034aed63141fac012c3be1d3cc45f34a5475886",
    ("e-snli-ve", "dev", 0): "71d712b147837d26c59e7d05ac8c959c7c093d482fb26ed509dc00d33aad5594",
}


@pytest.mark.parametrize("dataset,split,seed", sorted(FROZEN))
def test_paper_mode_output_is_byte_identical(shared_data, tmp_path, dataset, split, seed):
    reset_host(None)
    out = tmp_path / "paper.jsonl"
    try:
        code = main(["perturb", "--dataset", dataset, "--split", split, "--data-dir", str(shared_data),
                     "--mode", "paper", "--seed", str(seed), "--out", str(out)])
    finally:
        reset_host(None)
    assert code == 0
    assert hashlib.sha256(out.read_bytes()).hexdigest() == FROZEN[(dataset, split, seed)]
