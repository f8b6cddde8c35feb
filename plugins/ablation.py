"""Plugin `ablation`: the `image-ablation` probe for open-ended answers and its toy suite
(docs/image-ablation.md). Real-data suites list the probe by its name."""

from __future__ import annotations

from harness.hookspecs import hookimpl

from .probes.ablation import ABLATION_TOY_SUITE, ImageAblationProbe


@hookimpl
def register_probes(register) -> None:
    """Register `image-ablation`."""
    register(ImageAblationProbe)


@hookimpl
def register_suites(register) -> None:
    """Register `image-ablation-toy` (toy)."""
    register(ABLATION_TOY_SUITE)
