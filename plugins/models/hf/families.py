"""What `hf-vlm` does differently per model family: one table, keyed by `config.model_type`.

Everything not in the table is shared by all families (docs/hf-models.md):
- images go to the processor as one list per prompt (`images=[[im], [im], ...]`), which every
  processor accepts and Gemma 3 and Mllama require (a flat list fails on batches of two);
- the prompt is the processor's chat template for one user turn (image, then text);
- a candidate answer follows the templated prompt after one space, or directly when the
  template ends in whitespace (`ASSISTANT:` + " red", `<|im_start|>assistant\\n` + "red"), as
  the model would write it; its tokens are those after the longest common prefix of the
  prompt's tokens and the prompt+candidate's tokens (a merge across the seam counts as the
  candidate's).
"""

from __future__ import annotations

import inspect
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Family", "FAMILIES", "family_of", "load_processor", "without_video", "has_torchvision"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Family:
    """How one family deviates from the shared path (defaults: it does not)."""

    label: str
    #: The processor always loads a video processor, which needs torchvision: on a machine
    #: without torchvision it is assembled from its image processor and tokenizer alone.
    video: bool = False
    #: False: no chat template; the prompt is the image token and the text, and the
    #: processor lays out the rest (image tokens, BOS, a newline after the text).
    chat: bool = True
    #: "joint": prompt + candidate tokenized together; "suffix": the processor's `suffix=`
    #: argument (PaliGemma marks the answer with token_type_ids and ends it with EOS).
    candidates: str = "joint"
    #: Prompt templates that replace the shared ones (prompts.PROMPTS) for this family, as
    #: (task, template) pairs: a family trained on its own task syntax is asked in it.
    prompts: tuple[tuple[str, str], ...] = ()


# Why each entry: the processors of LLaVA-OneVision, Qwen2/2.5/3-VL, SmolVLM and InternVL
# load a video processor (torchvision) even for images; PaliGemma has no chat template and
# appends "\n" after the prompt, so a candidate cannot be appended to the prompt's text; its
# published VQA prompt is the task syntax "answer en {question}" (Google's PaliGemma prompt
# docs; the mix and the VQAv2-transfer checkpoints), not a chat instruction.
FAMILIES: dict[str, Family] = {
    "llava": Family("LLaVA-1.5"),
    "llava_next": Family("LLaVA-NeXT"),
    "llava_onevision": Family("LLaVA-OneVision", video=True),
    "qwen2_vl": Family("Qwen2-VL", video=True),
    "qwen2_5_vl": Family("Qwen2.5-VL", video=True),
    "qwen3_vl": Family("Qwen3-VL", video=True),
    "idefics3": Family("Idefics3"),
    "smolvlm": Family("SmolVLM", video=True),
    "paligemma": Family("PaliGemma", chat=False, candidates="suffix",
                        prompts=tuple((task, "answer en {question}") for task in ("short", "yes/no", "choice"))),
    "gemma3": Family("Gemma 3"),
    "mllama": Family("Llama 3.2 Vision (Mllama)"),
    "internvl": Family("InternVL", video=True),
}

#: Families not in the table take the shared path.
DEFAULT = Family("other")


def family_of(model_type: str | None) -> Family:
    """The table entry for a `config.model_type` (DEFAULT when the family is not listed)."""
    return FAMILIES.get(str(model_type or ""), DEFAULT)


def has_torchvision() -> bool:
    """Whether torchvision imports here (a CUDA build beside CPU torch does not).

    torchvision is deliberately not a declared dependency: the registries have no CPU build
    matching torch 2.13, and the CUDA one fails to import beside CPU torch. It is only probed:
    where it imports, processors load as published; elsewhere without_video() assembles them."""
    try:
        import torchvision  # noqa: F401  (optional, never declared: see above)
    except Exception:
        return False
    return True


def without_video(cls: type) -> type:
    """`cls` (a processor class) without its video processor: a subclass of the same name
    whose sub-processors are the others (so `save_pretrained` writes the family's own
    processor class and no video part). Construct it with `video_processor=None`."""
    attributes = [a for a in cls.get_attributes() if "video" not in a]
    # SmolVLM's apply_chat_template reads video_processor.num_frames/.fps even without videos:
    # a stand-in says "no default" (None) for both; nothing else of it is read for images.
    return type(cls.__name__, (cls,), {"get_attributes": classmethod(lambda _c: list(attributes)),
                                       "video_processor": _NoVideo(), "__module__": cls.__module__,
                                       "__doc__": cls.__doc__})


class _NoVideo:
    """Stands in for an absent video processor (falsy; no frame count, no frame rate)."""

    num_frames = None
    fps = None

    def __bool__(self) -> bool:
        return False


def load_processor(folder: str, model_type: str | None, trust_remote_code: bool) -> Any:
    """The folder's processor; for a `video` family without torchvision, the processor
    assembled from its image processor, tokenizer, chat template and options, without the
    video part (images only; the harness never sends videos)."""
    from transformers import AutoProcessor  # heavy: transformers takes seconds to import

    if not family_of(model_type).video or has_torchvision():
        return AutoProcessor.from_pretrained(folder, trust_remote_code=trust_remote_code)
    from transformers import AutoImageProcessor, AutoTokenizer  # heavy: transformers, as above

    path = Path(folder)
    cls = _processor_class(path, model_type)
    log.info("%s: torchvision is not installed; loading %s without its video processor", folder, cls.__name__)
    options = _processor_options(path, cls)
    return without_video(cls)(image_processor=AutoImageProcessor.from_pretrained(folder),
                              tokenizer=AutoTokenizer.from_pretrained(folder), video_processor=None, **options)


def _processor_options(folder: Path, cls: type) -> dict[str, Any]:
    """The processor's own saved options (image_seq_len, num_image_tokens, ...) that its
    __init__ takes, and its chat template (chat_template.jinja or .json)."""
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self", "image_processor", "tokenizer",
                                                                  "video_processor"}
    saved: dict[str, Any] = {}
    config = folder / "processor_config.json"
    if config.is_file():
        saved = json.loads(config.read_text(encoding="utf-8"))
    options = {k: v for k, v in saved.items() if k in accepted}
    if (folder / "chat_template.jinja").is_file():
        options["chat_template"] = (folder / "chat_template.jinja").read_text(encoding="utf-8")
    elif (folder / "chat_template.json").is_file():
        options["chat_template"] = json.loads((folder / "chat_template.json").read_text(encoding="utf-8"))["chat_template"]
    return options


def _processor_class(folder: Path, model_type: str | None) -> type:
    import transformers  # heavy: transformers takes seconds to import
    from transformers.models.auto.processing_auto import PROCESSOR_MAPPING_NAMES  # heavy, as above

    name = None
    config = folder / "processor_config.json"
    if config.is_file():
        name = json.loads(config.read_text(encoding="utf-8")).get("processor_class")
    name = name or PROCESSOR_MAPPING_NAMES.get(str(model_type))
    cls = getattr(transformers, str(name), None) if name else None
    if cls is None:
        raise ValueError(f"no processor class known for model_type {model_type!r}")
    return cls
