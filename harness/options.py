"""Plugin options: `--model name:key=value` parsing and validation, shared by every plugin kind."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from .errors import UsageError

__all__ = ["Option", "Configurable"]


@dataclass(frozen=True)
class Option:
    """A user-settable option of a plugin (`--model name:key=value`)."""

    default: Any
    help: str = ""
    #: Accepted values, when the option is a choice.
    choices: tuple[Any, ...] | None = None

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
                    value = kind(raw)
            except ValueError:
                raise UsageError(
                    f"{owner}: option {key}={raw!r} is not a valid {kind.__name__}"
                ) from None
        if self.choices is not None and value not in self.choices:
            raise UsageError(
                f"{owner}: option {key}={value!r} must be one of {', '.join(map(str, self.choices))}"
            )
        return value


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
            raise UsageError(
                f"{self.kind} {self.name!r} does not accept option(s) {', '.join(unknown)}; "
                f"accepted: {accepted}"
            )
        config = {k: opt.default for k, opt in self.options.items()}
        for key, raw in options.items():
            config[key] = self.options[key].parse(f"{self.kind} {self.name!r}", key, raw)
        self.config: dict[str, Any] = config
