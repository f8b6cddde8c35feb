"""`sizes`: one option that switches a model between the papers' sizes and small toy sizes.

A model with sizes from its paper declares them once (`Sizes(toy=..., paper=...)`) and mixes
in `SizedModel`. Its `sizes` option (`toy` or `paper`) sets every size option the user did
not give explicitly to that preset's value; options given explicitly always win. The option
itself is left out of the fingerprint (`Option(fingerprint=False)`): the resolved values are
in the config, so `sizes=paper` and the same values given one by one share the weight cache
and the prediction cache. Each size option's help names both values (`harness show model
NAME`). docs/models.md lists the values and their sources.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from harness.api import Option

__all__ = ["PRESETS", "Sizes", "SizedModel"]

#: The values of the `sizes` option.
PRESETS = ("toy", "paper")


def _shown(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class Sizes:
    """Toy and paper values of a model's size options; `default` is the preset used when
    `sizes` is not given (the options' defaults are that preset's values)."""

    toy: Mapping[str, Any]
    paper: Mapping[str, Any]
    #: Whose values `paper` are, for the help text.
    source: str
    default: str = "toy"

    def __post_init__(self) -> None:
        if set(self.toy) != set(self.paper) or self.default not in PRESETS:
            raise ValueError("Sizes: toy and paper must set the same options; default must be toy or paper")

    def values(self, preset: str) -> Mapping[str, Any]:
        """The option values of `preset` ("toy" or "paper")."""
        return self.paper if preset == "paper" else self.toy

    def options(self, base: Mapping[str, Option]) -> dict[str, Option]:
        """`base` with the `sizes` option added and each size option's default set to the
        default preset's value, its help naming both values."""
        out = dict(base)
        default = self.values(self.default)
        for key in sorted(self.toy):
            opt = out[key]
            help = f"{opt.help} [sizes=toy: {_shown(self.toy[key])}, sizes=paper: {_shown(self.paper[key])}]"
            out[key] = dataclasses.replace(opt, default=default[key], help=help)
        names = ", ".join(sorted(self.toy))
        out["sizes"] = Option(self.default, f"size preset: 'toy' (small, trains on 2 CPU cores in minutes) or 'paper' "
                              f"({self.source}); sets {names} unless given explicitly (explicit values win)",
                              choices=PRESETS, fingerprint=False)
        return out

    def resolve(self, owner: str, option: Option, given: Mapping[str, Any]) -> dict[str, Any]:
        """The options to build the model with: the chosen preset's values, then `given`."""
        preset = option.parse(owner, "sizes", given.get("sizes", self.default))
        return {**self.values(preset), **given}


class SizedModel:
    """Mixin (first among the bases) for a model with a `size_presets` table: resolves the
    `sizes` option before the options are validated and stored in `config`."""

    size_presets: ClassVar[Sizes]

    def __init__(self, **options: Any) -> None:
        cls: Any = type(self)
        owner = f"{cls.kind} {cls.name!r}"
        super().__init__(**self.size_presets.resolve(owner, cls.options["sizes"], options))  # type: ignore[call-arg]
