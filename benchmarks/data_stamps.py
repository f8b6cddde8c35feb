"""What keying a dataset's files by their bytes would cost, against the size and modification
time the dataset fingerprints hold (docs/architecture.md, "The caches": a file inside
`--data-dir` is named relative to it, so a folder moved with `cp -a`, `rsync -a` or `mv` keeps
its fingerprints).

    python benchmarks/data_stamps.py [--mb 300] [--files 1]

Writes `files` files of `mb` MiB of random bytes in a temporary folder (VQA v2's annotation
files are hundreds of MB) and times, in this process:

1. the fingerprint's stamps, `file_stamps(paths, root=folder)` (the baseline: one `stat` each);
2. a digest of the files' bytes (`file_content`) as a new process finds them (nothing memoized;
   the files are in the page cache, just written: a data folder on a network file system or a
   cold disk reads slower), and again (memoized by stat).

A run computes the fingerprints of every split it names, in every process (`--jobs`), restored
outputs or not. It prints seconds and the ratio of (2) to (1); the load (`uptime`) before and after.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from harness.cache.contents import file_content, forget_contents
from harness.digest import file_stamps

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_proc import best_of, positive_int, uptime  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=positive_int, default=300, help="MiB per file")
    parser.add_argument("--files", type=positive_int, default=1)
    args = parser.parse_args(argv)
    print(f"load before: {uptime()}")
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp) / f"annotations_{i}.json" for i in range(args.files)]
        for path in paths:
            with path.open("wb") as fh:
                for _ in range(args.mb):
                    fh.write(os.urandom(1 << 20))
        stamps = best_of(5, lambda: file_stamps(paths, root=tmp))

        def fresh() -> None:
            # As a new process with an empty harness cache finds it (no digest remembered)
            os.environ["VQA_HARNESS_CACHE"] = tempfile.mkdtemp(dir=tmp)
            forget_contents()
            for path in paths:
                file_content(path)

        read = best_of(3, fresh)
        again = best_of(5, lambda: [file_content(p) for p in paths])
    total = args.mb * args.files
    print(f"{args.files} file(s) of {args.mb} MiB ({total} MiB)")
    print(f"stamps by size and time (baseline): {stamps * 1e6:.0f} us")
    print(f"digest of the bytes, new process: {read:.3f} s ({total / read:.0f} MiB/s), ratio {read / stamps:,.0f}")
    print(f"digest of the bytes, again (memoized by stat): {again * 1e6:.0f} us, ratio {again / stamps:.1f}")
    print(f"load after: {uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
