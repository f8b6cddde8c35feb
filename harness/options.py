"""Plugin options: `--model name:key=value` parsing and validation, shared by every plugin kind."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from .errors import UsageError

__all__ = ["Option", "Configurable"]


@dataclass(frozen=True)
class Option:
    """A user-settable option of a plugin (`--model name:key=value`). `choices`: the accepted
    values, when the option is a choice. Numbers are checked against `min` / `max` (inclusive) when
    given, and must be finite, so an absurd value (`epochs=99999999999999999999999`, `lr=nan`) is a
    one-line usage error instead of a hang. `fingerprint=False` marks an option that cannot change
    outputs (where weights are fetched from); `Configurable.fingerprint_config` leaves it out."""

    default: Any
    help: str = ""
    choices: tuple[Any, ...] | None = None
    min: float | None = None
    max: float | None = None
    fingerprint: bool = True

    def parse(self, owner: str, key: str, raw: Any) -> Any:
        """Convert a command-line string to the default's type; one-line error if it fails."""
        value = raw
        if isinstance(raw, str) and self.default is not None and not isinstance(self.default, str):
            kind = type(self.default)
            try:
                if kind is bool:
                    if raw.lower() not in ("1", "0", "true", "false", "yes", "no"):
                        raise ValueError(raw)
                    value = raw.lower() in ("1", "true", "yes")
                else:
                    if not raw.isascii() or "_" in raw:  # int() also reads '١' and '1_0': not plain decimal
                        raise ValueError(raw)
                    value = kind(raw)
            except ValueError:
                shown = raw if len(raw) <= 30 else f"{raw[:27]}..."
                raise UsageError(f"{owner}: option {key}={shown!r} is not a valid "
                                 f"{kind.__name__}") from None
        if self.choices is not None and value is not None and value not in self.choices:  # None: unset
            raise UsageError(f"{owner}: option {key}={value!r} must be one of "
                             f"{', '.join(map(str, self.choices))}")
        self._check_range(owner, key, value)
        return value

    def _check_range(self, owner: str, key: str, value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return
        shown = str(value) if len(str(value)) <= 30 else f"{str(value)[:27]}..."
        if isinstance(value, float) and not math.isfinite(value):
            raise UsageError(f"{owner}: option {key}={shown} must be a finite number")
        if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
            lo = "-inf" if self.min is None else _num(self.min)
            hi = "inf" if self.max is None else _num(self.max)
            raise UsageError(f"{owner}: option {key}={shown} is out of range: must be between {lo} and {hi}")

    def default_problem(self) -> str:
        """What is wrong with the default against the option's own rules ('' when nothing):
        checked when the plugin registers, since the default is used without `parse`."""
        value = self.default
        if self.choices is not None and value is not None and value not in self.choices:  # None: unset
            return f"default {value!r} is not one of its choices ({', '.join(map(str, self.choices))})"
        bounded = self.min is not None or self.max is not None
        if bounded and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return (f"has min/max but its default {value!r} is not a number (values are converted to the "
                    "default's type, so give a number)")
        try:
            self._check_range("option", "default", value)
        except UsageError as exc:
            return str(exc).split(": ", 1)[-1].replace("option default=", "default ")
        return ""

    def describe_range(self) -> str:
        """'1..1000' (for listings and docs); '' when unbounded."""
        if self.min is None and self.max is None:
            return ""
        return f"{'' if self.min is None else _num(self.min)}..{'' if self.max is None else _num(self.max)}"


def _num(value: float) -> str:
    return f"{value:,}".replace(",", "_") if isinstance(value, int) and abs(value) >= 10_000 else str(value)


class Configurable:
    """Shared option handling: class-level `options`, validated `self.config`."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: "dataset", "model" or "probe" (for messages).
    kind: ClassVar[str] = "plugin"
    options: ClassVar[Mapping[str, Option]] = {}

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            accepted = ", ".join(sorted(self.options)) or "none"
            raise UsageError(f"{self.kind} {self.name!r} does not accept option(s) "
                             f"{', '.join(unknown)}; accepted: {accepted}")
        self.config: dict[str, Any] = {k: opt.default for k, opt in self.options.items()}
        for key, raw in options.items():
            self.config[key] = self.options[key].parse(f"{self.kind} {self.name!r}", key, raw)

    def fingerprint_config(self) -> dict[str, Any]:
        """`config` without the options that cannot change outputs (`Option(fingerprint=False)`)."""
        return {k: v for k, v in self.config.items() if k not in self.options or self.options[k].fingerprint}
