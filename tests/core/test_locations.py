"""`Locations` writes a folder as its token only where a path starts with it: the same
characters inside another path or a URL ("/mnt/data/", "https://host/data/") are someone
else's folder and must come back unchanged when the folder has moved."""

from __future__ import annotations

import json

from harness.locations import Locations


def test_only_a_path_that_starts_with_the_folder_is_a_token():
    before, after = Locations({"data-dir": "/data"}), Locations({"data-dir": "/elsewhere/data"})
    text = b"/data/a.png /mnt/data/b.png https://host/data/c x/data/d /data2/e"
    stored = before.store(text)
    assert stored == b"<<data-dir>>/a.png /mnt/data/b.png https://host/data/c x/data/d /data2/e"
    assert after.restore(stored) == b"/elsewhere/data/a.png /mnt/data/b.png https://host/data/c x/data/d /data2/e"


def test_a_path_after_a_json_escape_or_punctuation_is_still_a_token():
    where = Locations({"data-dir": "/data"})
    text = json.dumps({"report": "first image:\n/data/a.png\t/data/b.png", "paths": ["/data/c.png"],
                       "md": "(/data/d.png) '/data/e.png' </data/f.png>"}).encode()
    stored = where.store(text)
    assert b"/data/" not in stored and stored.count(b"<<data-dir>>/") == 6
    assert where.restore(stored) == text
