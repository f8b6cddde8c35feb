"""vqa-harness: does your vision-language model really use the image?"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
