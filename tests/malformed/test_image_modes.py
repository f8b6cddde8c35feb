"""Images in any common PNG/JPEG mode decode to the RGB a model should see: grayscale, palette,
CMYK, and 16-bit grayscale, which Pillow's `convert("RGB")` clips to white (a 16-bit PNG of
mid-gray, 32896, was decoded as 255, 255, 255: a model saw a white image and the image
ablation compared gray with white)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from harness.errors import DataError
from harness.images import image_array, load_image


def _save(tmp_path, name, im, fmt="PNG"):
    path = tmp_path / name
    im.save(path, format=fmt)
    return str(path)


@pytest.mark.parametrize("value", [0, 257 * 40, 257 * 128, 65535])
def test_a_16_bit_grayscale_png_keeps_its_gray_level(tmp_path, value):
    path = _save(tmp_path, "g16.png", Image.fromarray(np.full((6, 5), value, dtype=np.uint16)))
    assert Image.open(path).mode.startswith("I")
    assert np.asarray(load_image(path)).tolist() == np.full((6, 5, 3), value // 257).tolist()
    assert image_array(path, (4, 4)).max() == value // 257


def test_8_bit_modes_decode_to_their_rgb(tmp_path):
    rgb = Image.new("RGB", (8, 8), (200, 40, 90))
    gray = _save(tmp_path, "l.png", rgb.convert("L"))
    assert np.asarray(load_image(gray))[0, 0].tolist() == [rgb.convert("L").getpixel((0, 0))] * 3
    assert np.asarray(load_image(_save(tmp_path, "p.png", rgb.convert("P"))))[0, 0].tolist() == \
        list(rgb.convert("P").convert("RGB").getpixel((0, 0)))
    cmyk = np.asarray(load_image(_save(tmp_path, "c.jpg", rgb.convert("CMYK"), "JPEG")))[0, 0]
    assert np.abs(cmyk.astype(int) - [200, 40, 90]).max() <= 3


def test_a_32_bit_integer_tiff_is_not_scaled_as_16_bit(tmp_path):
    """Only 16-bit grayscale is scaled: a 32-bit integer TIFF of levels 0-255 keeps them."""
    path = _save(tmp_path, "i32.tif", Image.fromarray(np.full((4, 4), 200, dtype=np.int32)), "TIFF")
    assert Image.open(path).mode == "I"
    assert np.asarray(load_image(path))[0, 0].tolist() == [200, 200, 200]


def test_a_16_bit_pgm_keeps_its_gray_level(tmp_path):
    """Pillow opens a 16-bit PGM (maxval 65535) as "I", as a 16-bit PNG: it was decoded white."""
    path = tmp_path / "g16.pgm"
    path.write_bytes(b"P5\n3 2\n65535\n" + (257 * 128).to_bytes(2, "big") * 6)
    assert Image.open(path).mode == "I"
    assert np.asarray(load_image(str(path))).tolist() == np.full((2, 3, 3), 128).tolist()


_BIG = """
import sys
from PIL import Image
from harness.images import load_image
from vqa_harness_plugins.models.served.messages import sent_pixels
Image.MAX_IMAGE_PIXELS = 300  # a 20 x 20 image has 400 pixels: under twice the limit, Pillow warns
print(sent_pixels(sys.argv[1]), load_image(sys.argv[1]).getpixel((0, 0)), load_image(sys.argv[1]).size)
"""


def test_an_image_over_pillows_pixel_limit_is_one_line_naming_it(tmp_path, monkeypatch):
    """Pillow warned in its own words (no file named, its source line after it) for an image up
    to twice `MAX_IMAGE_PIXELS`; a larger one it refuses. Run as a user's process runs: the
    harness quiets Pillow's warning when harness.images is imported (pytest resets warning
    filters between tests and collection)."""
    path = _save(tmp_path, "big.png", Image.new("RGB", (20, 20), (1, 2, 3)))
    done = subprocess.run([sys.executable, "-c", _BIG, path], capture_output=True, text=True, check=True)
    assert done.stdout == "400 (1, 2, 3) (20, 20)\n"  # decoded all the same
    assert done.stderr == (f"warning: image {path} has 400 pixels, over Pillow's decompression-bomb "
                           "limit of 300; decoded anyway\n")  # once per image
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 100)  # over twice the limit: refused (restored after)
    with pytest.raises(DataError) as err:
        load_image(path)
    assert str(err.value).startswith(f"image {path} could not be decoded: ") and "\n" not in str(err.value)
