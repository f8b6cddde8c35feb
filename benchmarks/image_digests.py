"""What a re-run of an image model costs before it can restore anything, in a new process: the
probe-output key holds a digest of each image file's bytes (`images_key`), which `file_content`
remembers in the harness cache (kind `digests`) by path, size, times, inode and device, so a
new process stats each file instead of reading it (docs/architecture.md, "The caches").

    python benchmarks/image_digests.py [--images 8000] [--bytes 160000] [--repeat 3]

Writes `images` files of `bytes` random bytes in a temporary folder (a COCO image is about
160 KB; VQA v2 val has 40,504), waits 2 s (a file changed less than 2 s ago is not
remembered), then times, each in a new child process (best of `repeat`, the key computation
alone, measured inside the child; Python's start-up and imports are not counted):

1. the images' stamps by size and modification time, the key before it held bytes (baseline);
2. the key by bytes with an empty harness cache (every file read; the digests then written);
3. the key by bytes with the cache the previous step left (one `stat` per file).

It prints seconds, microseconds per image and ratios to (1), and the load (`uptime`) before
and after. The image files are read from the page cache (hot): a cold or network file system
makes (2) slower still, not (3).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_proc import positive_int, run_python, uptime  # noqa: E402

#: The child: the key of the images listed in argv[2] by argv[1] ("stamps" or "bytes").
_CHILD = """
import json, sys, time
from harness.cache.artifacts import ArtifactStore
from harness.cache.outputs import ProbeOutputCache
from harness.digest import digest, file_stamps
from harness.locations import Locations
paths = json.loads(open(sys.argv[2]).read())
start = time.perf_counter()
if sys.argv[1] == "stamps":
    digest(file_stamps(paths))
else:
    ProbeOutputCache(ArtifactStore(), Locations({})).images_key(paths)
print(json.dumps({"seconds": time.perf_counter() - start}))
"""


def _child(kind: str, listing: Path, cache: Path) -> float:
    out = run_python(["-c", _CHILD, kind, str(listing)], listing.parent, cache)
    return json.loads(out.output.strip().splitlines()[-1])["seconds"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=positive_int, default=8_000)
    parser.add_argument("--bytes", type=positive_int, default=160_000, help="size of each image file")
    parser.add_argument("--repeat", type=positive_int, default=3, help="child processes per figure (best kept)")
    args = parser.parse_args(argv)
    print(f"load before: {uptime()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "images"
        folder.mkdir()
        paths = [str(folder / f"{i:06d}.jpg") for i in range(args.images)]
        for path in paths:
            Path(path).write_bytes(os.urandom(args.bytes))  # not decoded here
        listing = Path(tmp) / "paths.json"
        listing.write_text(json.dumps(paths))
        time.sleep(2.1)  # older than the 2 s a digest waits before it is remembered
        stamps = min(_child("stamps", listing, Path(tmp) / "cache-stamps") for _ in range(args.repeat))
        read = min(_child("bytes", listing, Path(tmp) / f"cache-empty-{i}") for i in range(args.repeat))
        warm = Path(tmp) / "cache-warm"
        _child("bytes", listing, warm)
        remembered = min(_child("bytes", listing, warm) for _ in range(args.repeat))
        store = warm / "digests" / "files.jsonl"
        size = store.stat().st_size if store.is_file() else 0
    n = args.images
    print(f"{n:,} image files of {args.bytes:,} bytes, each figure the best of {args.repeat} new processes")
    print(f"images' stamps by size and time (baseline): {stamps:.3f} s ({stamps / n * 1e6:.1f} us per image)")
    print(f"images key by bytes, empty digest cache: {read:.3f} s ({read / n * 1e6:.1f} us per image), "
          f"ratio {read / stamps:.1f}")
    print(f"images key by bytes, digests remembered: {remembered:.3f} s ({remembered / n * 1e6:.1f} us per image), "
          f"ratio {remembered / stamps:.2f} (digest store {size:,} bytes; {read / remembered:.1f}x faster than reading)")
    print(f"load after: {uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
