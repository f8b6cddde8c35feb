"""Generation of a toyvqa split and its on-disk cache.

`generate` is pure apart from writing PNGs: the same (variant, split, seed, images, size,
GENERATOR_VERSION) gives the same examples and pixels on every machine. Randomness comes
only from `random.Random` streams seeded by a SHA-256 of those parameters (never `hash()`
of a string, which PYTHONHASHSEED salts, and never the clock).

`load_or_generate` keeps one folder per split under the user cache. A split is generated
into a temporary folder, its completion marker written last, and the folder renamed into
place in one atomic step, so an interrupted generation never leaves a cache that looks
complete.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from harness.cache.locks import build_lock
from harness.digest import digest_bytes
from harness.errors import DataError, UsageError
from harness.paths import cache_dir
from harness.seeding import seeded_random
from harness.threads import thread_map
from harness.types import Example

from . import humans
from .questions import Question, answer, choose_questions, complement
from .render import render, save_png
from .world import Scene, sample_scene

__all__ = [
    "TOY_DERIVED_META",
    "TOY_ANSWER_FACTORS",
    "GENERATOR_VERSION",
    "VARIANTS",
    "SPLITS",
    "DEFAULT_IMAGES",
    "DEFAULT_SIZE",
    "ToySplit",
    "generate",
    "load_or_generate",
    "split_dir",
    "read_scenes",
]

#: `meta` keys the toy generator computes from the question (its family, referent, template)
#: and from the image (the edit that made a complementary image): a modality ablation
#: removes them with the input (`DatasetPlugin.derived_meta`, harness.inputs).
TOY_DERIVED_META = {"question": ("family", "referent", "template"), "image": ("edit",)}
#: What decides a toy answer (`DatasetPlugin.answers_depend_on`): the exact colour and the
#: exact shape a question names (a near colour or a WordNet parent is another object here).
TOY_ANSWER_FACTORS = frozenset({"color", "object"})

#: Bump whenever generated examples or pixels could change (it keys caches and fingerprints).
GENERATOR_VERSION = "1"
VARIANTS = ("unbalanced", "balanced")
SPLITS = ("train", "val")
DEFAULT_IMAGES: Mapping[str, int] = {"train": 1500, "val": 500}
DEFAULT_SIZE = 64
#: Questions asked about each generated scene. The balanced variant asks fewer, because
#: each question also gets a complementary image, so both variants have similar sizes.
QUESTIONS_PER_IMAGE: Mapping[str, tuple[int, int]] = {"unbalanced": (3, 6), "balanced": (2, 3)}
WRITER_THREADS = 4
MARKER = "COMPLETE.json"
EXAMPLES = "examples.jsonl"
SCENES = "scenes.json"


@dataclass(frozen=True)
class ToySplit:
    """A generated split: its examples and the scene behind every image id."""

    examples: tuple[Example, ...]
    scenes: Mapping[str, Scene]


def _rng(*parts: Any) -> random.Random:
    return seeded_random("toyvqa", GENERATOR_VERSION, *parts)


def _check(variant: str, split: str, images: int, size: int) -> None:
    if variant not in VARIANTS:
        raise UsageError(f"toyvqa: variant {variant!r} must be one of {', '.join(VARIANTS)}")
    if split not in SPLITS:
        raise UsageError(f"toyvqa: unknown split {split!r}; splits: {', '.join(SPLITS)}")
    if images < 1:
        raise UsageError(f"toyvqa: images={images} must be at least 1")
    if size < 24:
        raise UsageError(f"toyvqa: size={size} must be at least 24 pixels")


def generate(variant: str, split: str, seed: int = 0, *, images: int | None = None,
             size: int = DEFAULT_SIZE, out_dir: Path | None = None) -> ToySplit:
    """Generate one split. PNGs go to `out_dir/images/` (absolute paths in `Example.image`);
    with `out_dir=None` nothing is written and `Example.image` is empty (text-only use)."""
    n_images = DEFAULT_IMAGES[split] if not images else int(images)
    _check(variant, split, n_images, size)
    world_rng = _rng(variant, split, seed, "world")
    human_rng = _rng(variant, split, seed, "humans")
    mc_rng = _rng(variant, split, seed, "choices")
    prefix = f"{variant[0]}{seed}-{split}"
    lo, hi = QUESTIONS_PER_IMAGE[variant]
    tally: Counter[tuple[str, str]] = Counter()
    img_dir = None
    if out_dir is not None:
        img_dir = Path(out_dir).absolute() / "images"
        img_dir.mkdir(parents=True, exist_ok=True)
    scenes: dict[str, Scene] = {}
    examples: list[Example] = []
    pending: list[tuple[Scene, Path]] = []

    def emit(image_id: str, scene: Scene, q: Question, ex_id: str, pair_id: str, edit: str) -> None:
        truth = answer(scene, q.family, q.ref)
        path = str(img_dir / f"{image_id}.png") if img_dir is not None else ""
        if image_id not in scenes:
            scenes[image_id] = scene
            if img_dir is not None:
                pending.append((scene, Path(path)))
        meta: dict[str, Any] = {
            "family": q.family,
            "referent": q.ref,
            "template": q.template,
            "true_answer": truth,
            "mc_target": truth,
            "variant": variant,
            "complement": bool(edit),
        }
        if edit:
            meta["edit"] = edit
        examples.append(Example(
            id=ex_id,
            question=q.text,
            image_id=image_id,
            image=path,
            answers=humans.human_answers(human_rng, truth, q.family),
            answer_type=q.answer_type,
            question_type=q.question_type,
            choices=humans.choices(mc_rng, truth, q.family),
            label=truth,
            explanations=humans.explanations(human_rng, scene, q, truth),
            pair_id=pair_id,
            meta=meta,
        ))

    for i in range(n_images):
        scene = sample_scene(world_rng, variant)
        image_id = f"{prefix}-{i:05d}"
        qs = choose_questions(scene, world_rng, variant, world_rng.randint(lo, hi), tally)
        for j, q in enumerate(qs):
            ex_id = f"{image_id}-q{j}"
            if variant == "unbalanced":
                emit(image_id, scene, q, ex_id, "", "")
                continue
            edited, edit = complement(scene, q, world_rng)
            comp_image = f"{image_id}-c{j}"
            comp_id = f"{comp_image}-q0"
            emit(image_id, scene, q, ex_id, comp_id, "")
            emit(comp_image, edited, q, comp_id, ex_id, edit)
    _write_images(pending, size)
    return ToySplit(tuple(examples), scenes)


def _write_images(jobs: list[tuple[Scene, Path]], size: int) -> None:
    """Render and save PNGs; a few threads hide file-system latency (each file is
    independent, so the bytes do not depend on the order). `thread_map`: a Ctrl-C here hung
    the run inside the thread pool's locks."""
    def one(job: tuple[Scene, Path]) -> None:
        save_png(render(job[0], size), job[1])

    thread_map(one, jobs, threads=WRITER_THREADS)


# ------------------------------------------------------------------------------ cache


def split_dir(variant: str, split: str, seed: int, images: int | None, size: int) -> Path:
    """The cache folder of one split (it may not exist yet)."""
    n_images = DEFAULT_IMAGES.get(split, 0) if not images else int(images)
    root = cache_dir("toyvqa", f"v{GENERATOR_VERSION}-{variant}-s{seed}-px{size}")
    return root / f"{split}-{n_images}"


def _write(folder: Path, data: ToySplit, meta: Mapping[str, Any]) -> None:
    lines = []
    for ex in data.examples:
        row = ex.to_row()
        if row["image"]:
            row["image"] = Path(row["image"]).relative_to(folder).as_posix()
        lines.append(json.dumps(row, sort_keys=True, ensure_ascii=False))
    blob = ("\n".join(lines) + "\n").encode()
    (folder / EXAMPLES).write_bytes(blob)
    scenes = {k: v.to_json() for k, v in data.scenes.items()}
    (folder / SCENES).write_text(json.dumps(scenes, sort_keys=True))
    marker = dict(meta, examples=len(data.examples), images=len(data.scenes),
                  sha256=digest_bytes(blob))
    (folder / MARKER).write_text(json.dumps(marker, sort_keys=True, indent=1))


def _read(folder: Path, blob: bytes) -> list[Example]:
    """The examples of a split from the bytes of its examples file (read once, by `_intact`)."""
    path = folder / EXAMPLES
    out = []
    for lineno, line in enumerate(blob.decode("utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if row.get("image"):
                row["image"] = str(folder / row["image"])
            out.append(Example.from_row(row))
        except (ValueError, KeyError, TypeError) as exc:
            raise DataError(f"{path}: line {lineno}: malformed toyvqa row ({exc}); "
                            f"delete {folder} to regenerate") from None
    return out


def read_scenes(folder: Path) -> dict[str, Scene]:
    """The scenes of a cached split, keyed by image id."""
    path = folder / SCENES
    try:
        data = json.loads(path.read_text())
        return {k: Scene.from_json(v) for k, v in data.items()}
    except (OSError, ValueError, TypeError) as exc:
        raise DataError(f"{path}: cannot read toyvqa scenes ({exc}); delete {folder.parent} "
                        "to regenerate") from None


def _clean_stale(parent: Path, stem: str) -> None:
    """Remove temporary folders left by generations whose process is gone."""
    for tmp in parent.glob(f".tmp-{stem}-*"):
        try:
            pid = int(tmp.name.split("-")[-2])
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(tmp, ignore_errors=True)
        except (ValueError, IndexError, PermissionError, OSError):
            continue


def load_or_generate(variant: str, split: str, seed: int = 0, *, images: int | None = None,
                     size: int = DEFAULT_SIZE) -> tuple[list[Example], Path]:
    """The examples of a split from the cache, generating (and caching) them first if needed."""
    folder = split_dir(variant, split, seed, images, size)
    blob = _intact(folder)
    if blob is None:
        with build_lock(folder):  # concurrent runs (harness run --jobs) generate it once
            blob = _intact(folder)
            if blob is None:
                _generate_into(folder, variant, split, seed, images, size)
                blob = _intact(folder)
            if blob is None:
                raise DataError(f"{folder / EXAMPLES}: cannot read the toyvqa split just written; delete "
                                f"{folder} to regenerate")
    return _read(folder, blob), folder


def _intact(folder: Path) -> bytes | None:
    """The split's examples file when its marker is there and records these bytes (a file cut at
    a line end, or edited, would otherwise be read as the split); else None."""
    try:
        marker = json.loads((folder / MARKER).read_text(encoding="utf-8"))
        blob = (folder / EXAMPLES).read_bytes()
        return blob if digest_bytes(blob) == marker["sha256"] else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _generate_into(folder: Path, variant: str, split: str, seed: int, images: int | None, size: int) -> None:
    if folder.exists():  # a folder without its marker is not ours to trust
        shutil.rmtree(folder, ignore_errors=True)
    _clean_stale(folder.parent, folder.name)
    tmp = folder.parent / f".tmp-{folder.name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        data = generate(variant, split, seed, images=images, size=size, out_dir=tmp)
        _write(tmp, data, {"generator_version": GENERATOR_VERSION, "variant": variant,
                           "split": split, "seed": seed, "size": size})
        try:
            os.rename(tmp, folder)
        except OSError:
            if not (folder / MARKER).is_file():  # pragma: no cover - not a lost race
                raise
            # Another process finished the same split first; its result is identical.
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
