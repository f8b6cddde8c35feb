"""Screenshots of a leaderboard site's first screen at 1280 and 420 px (headless Chromium).

    python scripts/leaderboard_screenshots.py SITE_FOLDER OUT_FOLDER [--colors 48]

Writes OUT_FOLDER/leaderboard-1280.png and leaderboard-420.png: the first screen (900 px high)
of SITE_FOLDER/index.html, as the browser test sees it (tests/leaderboard/helpers_browser.py
drives Debian's `chromium`), reduced to a small palette so the files stay small. The images in
docs/images/ come from the main job's leaderboard (README, command 1), built with this script.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "leaderboard"))  # the browser driver the tests use

from helpers_browser import Browser  # noqa: E402  (found through the line above)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--colors", type=int, default=48, help="palette size of the written PNGs")
    args = parser.parse_args(argv)
    page = (args.site / "index.html").resolve()
    if not page.is_file():
        print(f"error: {page}: no leaderboard there (run `harness leaderboard build` first)", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    with Browser.launch() as browser:
        for width in (1280, 420):
            browser.send("Emulation.setDeviceMetricsOverride",
                         {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False})
            browser.open(page.as_uri())
            shot = browser.screenshot(args.out / f"leaderboard-{width}.png", full_page=False)
            image = Image.open(shot).convert("RGB").quantize(colors=args.colors, method=Image.Quantize.MEDIANCUT)
            image.save(shot, optimize=True)
            print(shot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
