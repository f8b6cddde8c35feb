"""What the lenient policies (`duplicates=keep-first`, `answers=lenient`, the decoy
datasets' `empty_targets=skip`) let through, for
`harness.api.DatasetPlugin.accepted`: the run records it in the manifest's `data_counts` and
shows its `note` in report.md (docs/datasets.md, "Duplicate and answer-count policies").

A dataset whose options include those policies and whose `summary(split)` carries a
`Tally`'s counts subclasses `PolicyCounts` (a `DatasetPlugin`) instead of `DatasetPlugin`.
"""

from __future__ import annotations

from typing import Any, Mapping

from harness.api import DatasetPlugin

__all__ = ["PolicyCounts", "accepted_counts", "accepted_note"]


def accepted_counts(config: Mapping[str, Any], summary: Mapping[str, Any]) -> dict[str, Any]:
    """The policies in force, the expected answer count and the non-zero counts (with the
    first ids) of `summary`, plus their `note`; {} when a policy accepted nothing."""
    counts = {k: v for k, v in summary.items()
              if k.startswith(("duplicate_", "answer_count_mismatches", "empty_targets_skipped")) and v}
    if not counts:
        return {}
    policies = {k: config[k] for k in ("duplicates", "answers", "empty_targets") if k in config}
    expected = {"expected_answers": summary["expected_answers"]} if summary.get("expected_answers") else {}
    out = {**policies, **expected, **counts}
    return {**out, "note": accepted_note(out)}


def accepted_note(counts: Mapping[str, Any]) -> str:
    """One line: repeated ids dropped under duplicates=keep-first, other answer counts kept
    under answers=lenient."""
    parts = []
    for key, value in counts.items():
        if key.startswith("duplicate_") and not key.endswith("_shown") and isinstance(value, int):
            name = key[len("duplicate_"):-1]
            shown = counts.get(f"{key}_shown") or []
            parts.append(f"{value} repeated {name}(s) dropped, the first kept (duplicates=keep-first"
                         + (f"; e.g. {', '.join(map(str, shown[:5]))}" if shown else "") + ")")
    mismatches = counts.get("answer_count_mismatches")
    if mismatches:
        shown = counts.get("answer_count_mismatches_shown") or []
        expected = counts.get("expected_answers")
        parts.append(f"{mismatches} record(s) with other than {expected or 'the expected'} answers kept "
                     "(answers=lenient" + (f"; e.g. {', '.join(map(str, shown[:5]))}" if shown else "") + ")")
    skipped = counts.get("empty_targets_skipped")
    if skipped:
        shown = counts.get("empty_targets_skipped_shown") or []
        parts.append(f"{skipped} question(s) whose target is empty once normalized left out of the decoy generation "
                     "(empty_targets=skip" + (f"; e.g. {', '.join(map(str, shown[:5]))}" if shown else "") + ")")
    return "; ".join(parts) or "nothing accepted"


class PolicyCounts(DatasetPlugin):
    """A dataset whose `accepted` comes from the policy options and `summary(split)`: only a
    dataset run with a lenient policy is asked for its summary (with the defaults nothing is
    accepted)."""

    def accepted(self, split: str) -> dict[str, Any]:
        if self.config.get("duplicates") != "keep-first" and self.config.get("answers") != "lenient" \
                and self.config.get("empty_targets") != "skip":
            return {}
        return accepted_counts(self.config, self.summary(split))
