"""vqa-harness: does your vision-language model really use the image?"""

from __future__ import annotations

import os

__version__ = "0.1.0"
__all__ = ["__version__", "NUMERICS_ENV"]

#: Reproducible float arithmetic on any x86 machine and thread count: MKL's strict
#: conditional numerical reproducibility on the AVX2 code path (results independent of
#: the number of threads), and ATen / oneDNN kernels capped at AVX2, so a machine with
#: AVX-512 computes the same bits as one without. They take effect only if set before torch
#: is imported (the harness imports torch lazily); a user's own setting wins.
NUMERICS_ENV = {"MKL_CBWR": "AVX2,STRICT", "ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
for _name, _value in NUMERICS_ENV.items():
    os.environ.setdefault(_name, _value)
