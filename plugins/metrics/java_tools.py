"""The Java tools of pycocoevalcap as the e-ViL metric bundle runs them (`.nlg`): where they
are, the environment they start in, and METEOR in one Java process for every pair.

They are started here rather than by pycocoevalcap so that they work from any install path
and locale: a venv whose path holds a space, a ":" or a non-ASCII letter, under LANG=C
(docs/e-vil.md). The scores are pycocoevalcap's own (tests/e_vil: equal to direct calls)."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

from harness.errors import ResourceError

__all__ = ["JAVA_HINT", "METEOR_TABLE", "close_meteor", "java", "java_env", "meteor_scores", "pycoco_dir"]

JAVA_HINT = "install Java with `apt-get install default-jre-headless` (or any JRE >= 8 on PATH)"
#: METEOR's paraphrase table, relative to pycocoevalcap/meteor.
METEOR_TABLE = "data/paraphrase-en.gz"
_UTF8 = ("utf-8", "utf8")


def pycoco_dir(sub: str) -> Path:
    import pycocoevalcap  # heavy: the caption metrics start Java tools; loaded on use

    return Path(list(pycocoevalcap.__path__)[0]) / sub


def java() -> str:
    found = shutil.which("java")
    if found is None:
        raise ResourceError(f"the program `java` was not found on PATH (needed by pycocoevalcap); {JAVA_HINT}")
    return found


def java_env() -> dict[str, str]:
    """The environment of the Java tools: the user's, in the C.UTF-8 locale unless the user's
    locale is a UTF-8 one already.

    Java decodes its arguments and file names (the jar, its working folder) in the locale's
    charset (sun.jnu.encoding): under LANG=C a site-packages path holding "é" named no file,
    and the PTB tokenizer and METEOR failed to start (ClassNotFoundException). A UTF-8 locale
    of the user's is kept (C.UTF-8 is missing on some older systems)."""
    env = dict(os.environ)
    chosen = env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG") or ""
    if not any(name in chosen.lower() for name in _UTF8):
        env["LC_ALL"] = "C.UTF-8"
    return env


def _start_meteor() -> Any:
    """pycocoevalcap's `Meteor` with its own command and folder, but Java started here: with
    the paraphrase table named as a file (`-a data/paraphrase-en.gz`) and `java_env()`.

    METEOR 1.5 finds its table through the URL of its jar and percent-encodes that URL twice
    (a space becomes %2520), so from a venv whose path holds a space or a non-ASCII letter it
    stopped at "file not found" and the metric failed. Named as a file, it is the same table.
    This sets the scorer's attributes (`meteor_cmd`, `meteor_p`, `lock`: pycocoevalcap 1.2's,
    not a public interface) that its `compute_score` and `__del__` use."""
    from pycocoevalcap.meteor import meteor  # heavy: imported on use

    proc = subprocess.Popen([java(), "-jar", "-Xmx2G", meteor.METEOR_JAR, "-", "-", "-stdio", "-l", "en", "-norm",
                             "-a", METEOR_TABLE], cwd=Path(meteor.__file__).parent, env=java_env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    scorer = meteor.Meteor.__new__(meteor.Meteor)
    scorer.meteor_cmd, scorer.meteor_p, scorer.lock = proc.args, proc, threading.Lock()
    return scorer


def meteor_scores(gts: dict, res: dict) -> tuple[float, list[float]]:
    """pycocoevalcap's METEOR (`compute_score(gts, res)`) in one Java process: (corpus, each)."""
    try:
        scorer = _start_meteor()
    except OSError as exc:
        raise ResourceError(f"METEOR: could not start java ({exc}); {JAVA_HINT}") from None
    try:
        score, scores = scorer.compute_score(gts, res)
    except (ValueError, OSError, BrokenPipeError) as exc:
        err = ""
        try:
            scorer.meteor_p.kill()
            lines = scorer.meteor_p.stderr.read().decode("utf-8", "replace").strip().splitlines()
            err = next((x for x in lines if "Exception" in x or "Error" in x), lines[-1] if lines else "")
        except Exception:  # noqa: BLE001 - best effort to name the Java error
            pass
        raise ResourceError(f"METEOR (java) failed: {err or exc}; {JAVA_HINT}") from None
    finally:
        close_meteor(scorer)
    return float(score), [float(s) for s in scores]


def close_meteor(scorer: Any) -> None:
    """Stop a `Meteor` scorer's Java now rather than whenever its `__del__` runs: a failed
    compute_score leaves its lock held, and `__del__` would then block forever on it."""
    scorer.lock = threading.Lock()
    proc = scorer.meteor_p
    try:
        proc.stdin.close()
    except OSError:
        pass
    proc.kill()
    proc.wait()
