"""vqa-harness: does your vision-language model really use the image?"""

from __future__ import annotations

import os
import sys

__version__ = "0.1.0"
__all__ = ["__version__", "NUMERICS_ENV", "PINS_IN_EFFECT"]

#: Reproducible float arithmetic on any x86-64 machine and thread count: MKL's COMPATIBLE branch
#: (the only one MKL honours on AMD as well as Intel CPUs: docs/models.md, "Machine-independent
#: numerics"); ATen kernels capped at AVX2, so a machine with AVX-512 runs the same vectorized
#: code as one without; oneDNN likewise, for the code that still uses it (the trained toy models
#: do not: `vqa_harness_plugins.models.runtime.reproducible_cpu`). They take effect only if set
#: before torch is imported (the harness imports torch lazily); a user's own setting wins.
NUMERICS_ENV = {"MKL_CBWR": "COMPATIBLE", "ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
for _name, _value in NUMERICS_ENV.items():
    os.environ.setdefault(_name, _value)

#: False when torch was imported before this package (a notebook, a script): then the pins
#: above came too late for this process (torch and MKL read them when they load), whatever the
#: environment now says. In every run's manifest (`numerics.pins_in_effect`); `harness run` warns.
PINS_IN_EFFECT = "torch" not in sys.modules
