"""What keying on image files costs: a model that looks at images has a digest of each image
file's bytes in its prediction keys and in its probe-output keys (read once per file and
process, then one `stat` per question), so that an image rewritten at the same path is asked
again and a moved folder is not (docs/architecture.md, "The caches").

    python benchmarks/image_stamps.py [--questions 200000] [--per-image 5] [--bytes 160000]

Writes `questions / per-image` files of `bytes` random bytes in a temporary folder (VQA v2 val
has about 5.4 questions per image, a COCO image about 160 KB) and times, in this process:

1. the prediction keys of every question for a text model (the baseline: no file is looked
   at) and for the same model looking at images: first with every file read (none digested
   yet in the process), then again (one `stat` per question);
2. the probe-output key's image digest over the task's questions, which a re-run computes for
   an image model before it can restore a probe's output: by bytes (`images_key`) in a new
   process with an empty harness cache (every file read) and again, against the size-and-time digest it replaced (the
   baseline: one `stat` per distinct file).

It prints seconds, microseconds per question and the ratio of (1) to its baseline. The load
(`uptime`) is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from harness.api import Model
from harness.cache.artifacts import ArtifactStore
from harness.locations import Locations
from harness.cache.outputs import ProbeOutputCache
from harness.cache.contents import forget_contents
from harness.digest import digest, file_stamps
from harness.types import Example

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_proc import best_of, positive_int, uptime  # noqa: E402


class _Text(Model):
    name = "text"


class _Looking(Model):
    name = "looking"
    uses_images = True


def _new_process(cache: Path) -> None:
    """What a new process with an empty harness cache knows (no digest memoized nor remembered;
    `benchmarks/image_digests.py` times a new process with the digests remembered)."""
    os.environ["VQA_HARNESS_CACHE"] = str(cache)
    forget_contents()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=positive_int, default=200_000)
    parser.add_argument("--per-image", type=positive_int, default=5)
    parser.add_argument("--bytes", type=positive_int, default=160_000, help="size of each image file")
    args = parser.parse_args(argv)
    print(f"load before: {uptime()}")
    with tempfile.TemporaryDirectory() as tmp:
        images = [Path(tmp) / f"{i:06d}.jpg" for i in range(max(1, -(-args.questions // args.per_image)))]
        for path in images:
            path.write_bytes(os.urandom(args.bytes))  # not decoded here
        examples = [Example(id=str(i), question=f"what is in picture {i}?", image=str(images[i % len(images)]))
                    for i in range(args.questions)]
        text, looking = _Text(), _Looking()
        base = best_of(3, lambda: [text.input_key(ex, "answer") for ex in examples])
        _new_process(Path(tmp) / "cache-1")
        first = best_of(1, lambda: [looking.input_key(ex, "answer") for ex in examples])
        keyed = best_of(3, lambda: [looking.input_key(ex, "answer") for ex in examples])
        outputs = best_of(3, lambda: digest(file_stamps(dict.fromkeys(ex.image for ex in examples))))
        cache = ProbeOutputCache(ArtifactStore(Path(tmp) / "store"), Locations({"data-dir": tmp}))
        _new_process(Path(tmp) / "cache-2")
        read = best_of(1, lambda: cache.images_key(list(dict.fromkeys(ex.image for ex in examples))))
        again = best_of(3, lambda: cache.images_key(list(dict.fromkeys(ex.image for ex in examples))))
    n = args.questions
    print(f"{n:,} questions, {len(images):,} image files of {args.bytes:,} bytes")
    print(f"prediction keys, text model (baseline): {base:.3f} s ({base / n * 1e6:.1f} us per question)")
    print(f"prediction keys, model looking at images, files read: {first:.3f} s ({first / n * 1e6:.1f} us per "
          f"question), ratio {first / base:.2f}")
    print(f"prediction keys, model looking at images, again: {keyed:.3f} s ({keyed / n * 1e6:.1f} us per question), "
          f"ratio {keyed / base:.2f}")
    print(f"probe-output key, image digest by size and time (baseline): {outputs:.3f} s")
    print(f"probe-output key, image digest by bytes, files read: {read:.3f} s ({read / len(images) * 1e3:.2f} ms "
          f"per file), ratio {read / outputs:.1f}; again: {again:.3f} s, ratio {again / outputs:.2f}")
    print(f"load after: {uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
