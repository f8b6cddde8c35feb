"""Drive a headless Chromium over the DevTools protocol, with the standard library only.

Used by the leaderboard's browser test (and handy for screenshots): Chromium is started
with `--remote-debugging-pipe`, which speaks CDP as NUL-terminated JSON messages on file
descriptors 3 (commands in) and 4 (events and replies out), so no websocket client is
needed. Console errors and uncaught exceptions are collected while a page is open.

    with Browser.launch() as b:
        b.open(Path("leaderboard/index.html").resolve().as_uri())
        b.evaluate("document.title")
        b.screenshot(Path("/tmp/index.png"))
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM_FLAGS", "Browser", "BrowserError", "find_chromium"]

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
    "--allow-file-access-from-files",
)


class BrowserError(RuntimeError):
    """The browser failed to start, answer, or ran a command that failed."""


def find_chromium() -> str | None:
    """Path of a Chromium/Chrome binary (CHROMIUM env var first), or None."""
    explicit = os.environ.get("CHROMIUM")
    if explicit and Path(explicit).is_file():
        return explicit
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One headless browser with one page target (a CDP session over a pipe)."""

    def __init__(self, proc: subprocess.Popen, to_browser: int, from_browser: int, profile: str,
                 timeout: float) -> None:
        self.proc, self._out, self._in, self._profile = proc, to_browser, from_browser, profile
        self.timeout = timeout
        self._next_id = 0
        self._buffer = b""
        self._session: str | None = None
        self.events: list[dict[str, Any]] = []
        self.console_errors: list[str] = []

    @classmethod
    def launch(cls, binary: str | None = None, *, width: int = 1280, height: int = 900,
               timeout: float = 20.0) -> Browser:
        """Start Chromium headless with a throwaway profile; BrowserError if it cannot."""
        binary = binary or find_chromium()
        if not binary:
            raise BrowserError("no chromium binary found (set CHROMIUM or install chromium)")
        profile = tempfile.mkdtemp(prefix="vqa-harness-chromium-")
        cmd_r, cmd_w = os.pipe()  # we write commands -> browser reads fd 3
        evt_r, evt_w = os.pipe()  # browser writes fd 4 -> we read

        # preexec_fn only calls fcntl/dup2 (async-signal-safe), so it is safe with threads.
        def _child_fds() -> None:  # runs in the child before exec: place the pipes at 3 and 4
            import fcntl

            # Move both out of the way first, so placing one cannot clobber the other. dup2
            # clears close-on-exec on 3 and 4; every other descriptor Python opened has it set,
            # which is why close_fds=False is safe (close_fds would run after this and close 3, 4).
            high_r, high_w = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10), fcntl.fcntl(evt_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        args = [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                "--remote-debugging-pipe", "about:blank"]
        try:
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, close_fds=False, preexec_fn=_child_fds)
        except OSError as exc:
            shutil.rmtree(profile, ignore_errors=True)
            raise BrowserError(f"cannot start {binary}: {exc}") from None
        os.close(cmd_r)
        os.close(evt_w)
        browser = cls(proc, cmd_w, evt_r, profile, timeout)
        try:
            target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            browser._session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
                browser.send(domain)
            browser.send("Emulation.setDeviceMetricsOverride",
                         {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        except BaseException:
            browser.close()
            raise
        return browser

    # ------------------------------------------------------------ protocol

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("timed out waiting for the browser")
            ready, _, _ = select.select([self._in], [], [], left)
            if ready:
                chunk = os.read(self._in, 1 << 16)
                if not chunk:
                    raise BrowserError("the browser closed the DevTools pipe")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def _record(self, msg: dict[str, Any]) -> None:
        self.events.append(msg)
        method, params = msg.get("method"), msg.get("params") or {}
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            self.console_errors.append(f"console.{params['type']}: {text}")
        elif method == "Runtime.exceptionThrown":
            detail = params.get("exceptionDetails", {})
            desc = (detail.get("exception") or {}).get("description") or detail.get("text", "")
            self.console_errors.append(f"uncaught: {desc}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            self.console_errors.append(f"log: {entry.get('text', '')} {entry.get('url', '')}".strip())

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one CDP command (to the page session once attached) and return its result."""
        self._next_id += 1
        msg: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if self._session and not method.startswith(("Target.", "Browser.")):
            msg["sessionId"] = self._session
        os.write(self._out, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            self._record(reply)

    def wait_for(self, method: str) -> dict[str, Any]:
        """Wait for the next event named `method` (already-received ones count)."""
        for i, ev in enumerate(self.events):
            if ev.get("method") == method:
                return self.events.pop(i)
        deadline = time.monotonic() + self.timeout
        while True:
            msg = self._read_message(deadline)
            self._record(msg)
            if msg.get("method") == method:
                self.events.remove(msg)
                return msg

    # ------------------------------------------------------------ page helpers

    def open(self, url: str) -> None:
        """Navigate and wait for the load event (images included)."""
        self.events.clear()
        result = self.send("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise BrowserError(f"cannot open {url}: {result['errorText']}")
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the page (promises awaited)."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            detail = result["exceptionDetails"]
            raise BrowserError(f"JavaScript error: {(detail.get('exception') or {}).get('description', detail.get('text'))}")
        return result.get("result", {}).get("value")

    def screenshot(self, path: Path, *, full_page: bool = True) -> Path:
        """A PNG of the page (the whole page by default)."""
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
        if full_page:
            w, h = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": w, "height": min(h, 16000), "scale": 1}
        data = self.send("Page.captureScreenshot", params)["data"]
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        """Close the browser and remove its profile."""
        try:
            if self.proc.poll() is None:
                try:
                    os.write(self._out, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
                    self.proc.wait(timeout=5)
                except (OSError, subprocess.TimeoutExpired):
                    self.proc.kill()
                    self.proc.wait(timeout=5)
        finally:
            for fd in (self._out, self._in):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
