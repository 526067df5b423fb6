"""A headless Chromium driven over its DevTools protocol, with no Python dependency.

`--remote-debugging-pipe` makes Chromium read protocol commands from file descriptor 3 and
write replies and events to file descriptor 4, each message one JSON object followed by a NUL
byte: no websocket, no port, no client library. One reader thread splits the stream: replies
go to the caller waiting on their id, events to the page they belong to (the flat session
mode tags each with its `sessionId`).

What a test reads from a `Page`: `errors` (console errors, uncaught exceptions, Log entries at
level error), `requests` (the URL of every request the page made), `evaluate(js)`,
`screenshot(path)`, and `timing()` (navigation, paint and user-timing entries).
"""

from __future__ import annotations

import base64
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# Debian's package installs `chromium`; other systems name it one of the others.
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
FLAGS = (
    "--headless=new", "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
    "--disable-gpu", "--disable-dev-shm-usage", "--disable-extensions", "--mute-audio",
    # Chromium's own traffic (component updates, safe browsing, field trials) is not the
    # page's, and a test machine may have no network at all.
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--metrics-recording-only", "--disable-default-apps", "--hide-scrollbars",
)
TIMEOUT = 30.0


def find_chromium() -> str | None:
    """The browser's path: $ENF_CHROMIUM if set, else the first of NAMES on PATH."""
    chosen = os.environ.get("ENF_CHROMIUM")
    if chosen:
        return chosen if os.access(chosen, os.X_OK) else None
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class ProtocolError(RuntimeError):
    """Chromium answered a command with an error, or did not answer in time."""


class Page:
    """One tab, attached in flat mode: commands carry its session id."""

    def __init__(self, browser: Browser, target_id: str, session_id: str) -> None:
        self.browser = browser
        self.target_id = target_id
        self.session_id = session_id
        self.errors: list[str] = []
        self.requests: list[str] = []
        self._loaded = threading.Event()

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, session_id=self.session_id)

    def on_event(self, method: str, params: dict[str, Any]) -> None:
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console: " + " ".join(_arg_text(arg) for arg in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            described = details.get("exception", {}).get("description") or details.get("text", "")
            self.errors.append(f"exception: {described}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            self.errors.append(f"log: {entry.get('text', '')} {entry.get('url', '')}".rstrip())
        elif method == "Network.requestWillBeSent":
            self.requests.append(params.get("request", {}).get("url", ""))
        elif method == "Page.loadEventFired":
            self._loaded.set()

    def goto(self, url: str, timeout: float = TIMEOUT) -> None:
        """Load `url` and wait for its load event."""
        self._loaded.clear()
        reply = self.send("Page.navigate", {"url": url})
        if reply.get("errorText"):
            raise ProtocolError(f"navigation to {url} failed: {reply['errorText']}")
        if not self._loaded.wait(timeout):
            raise ProtocolError(f"{url} did not finish loading within {timeout} s")

    def evaluate(self, expression: str) -> Any:
        """The value of a JS expression (awaited if it is a promise), as JSON gives it back."""
        reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                               "awaitPromise": True})
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            described = details.get("exception", {}).get("description") or details.get("text", "")
            raise ProtocolError(f"{expression[:80]!r} threw: {described}")
        return reply.get("result", {}).get("value")

    def screenshot(self, path: Path, full_page: bool = True) -> Path:
        """A PNG of the page (the whole document unless `full_page` is False)."""
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
        if full_page:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", params)["data"]))
        return path

    def color_scheme(self, scheme: str) -> None:
        """Emulate `prefers-color-scheme: light|dark` for this page."""
        self.send("Emulation.setEmulatedMedia",
                  {"features": [{"name": "prefers-color-scheme", "value": scheme}]})

    def close(self) -> None:
        self.browser.send("Target.closeTarget", {"targetId": self.target_id})
        self.browser.forget(self.session_id)

    def viewport(self, width: int, height: int) -> None:
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def timing(self) -> dict[str, Any]:
        """The navigation timing, the paint entries and the page's own marks and measures."""
        result = self.evaluate(
            "JSON.stringify({navigation: performance.getEntriesByType('navigation').map(e => e.toJSON()),"
            " paint: performance.getEntriesByType('paint').map(e => e.toJSON()),"
            " mark: performance.getEntriesByType('mark').map(e => e.toJSON()),"
            " measure: performance.getEntriesByType('measure').map(e => e.toJSON())})")
        parsed: dict[str, Any] = json.loads(result)
        return parsed


def _arg_text(arg: dict[str, Any]) -> str:
    if "value" in arg:
        return str(arg["value"])
    return str(arg.get("description", arg.get("type", "")))


class Browser:
    """A Chromium process and its protocol pipe."""

    def __init__(self, executable: str, profile: Path) -> None:
        to_chrome_r, self._out = os.pipe()  # we write commands; Chromium reads them on fd 3
        self._in, from_chrome_w = os.pipe()  # Chromium writes on fd 4; we read
        args = [executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox (CI is root)
        self.process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            pass_fds=(3, 4), preexec_fn=_dup_pipes(to_chrome_r, from_chrome_w), start_new_session=True)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._next_id = 0
        self._lock = threading.Lock()
        self._waiting: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._pages: dict[str, Page] = {}
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def send(self, method: str, params: dict[str, Any] | None = None, session_id: str | None = None,
             timeout: float = TIMEOUT) -> dict[str, Any]:
        """Send one command and wait for its reply."""
        with self._lock:
            self._next_id += 1
            ident = self._next_id
            box: queue.Queue[dict[str, Any]] = queue.Queue(1)
            self._waiting[ident] = box
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session_id:
            message["sessionId"] = session_id
        os.write(self._out, json.dumps(message).encode() + b"\0")
        try:
            reply = box.get(timeout=timeout)
        except queue.Empty:
            raise ProtocolError(f"no reply to {method} within {timeout} s") from None
        finally:
            self._waiting.pop(ident, None)
        if "error" in reply:
            raise ProtocolError(f"{method}: {reply['error'].get('message', reply['error'])}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    def new_page(self, width: int = 1280, height: int = 900) -> Page:
        """A fresh tab with the Runtime, Log, Network and Page domains reporting."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, target, session)
        self._pages[session] = page
        for domain in ("Runtime", "Log", "Network", "Page"):
            page.send(f"{domain}.enable")
        page.viewport(width, height)
        return page

    def forget(self, session_id: str) -> None:
        self._pages.pop(session_id, None)

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (ProtocolError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._out, self._in):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.process.stderr:
            self.process.stderr.close()

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._in, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for raw in messages:
                self._dispatch(json.loads(raw))

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "id" in message:
            box = self._waiting.get(message["id"])
            if box is not None:
                box.put(message)
            return
        page = self._pages.get(message.get("sessionId", ""))
        if page is not None:
            page.on_event(message.get("method", ""), message.get("params", {}))


def _dup_pipes(read_end: int, write_end: int) -> Any:
    """In the child: the command pipe on fd 3, the reply pipe on fd 4."""
    def setup() -> None:
        # Move both out of the way first: one of them may already sit on 3 or 4.
        high_r, high_w = os.dup(read_end), os.dup(write_end)
        os.dup2(high_r, 3)
        os.dup2(high_w, 4)
    return setup


@contextmanager
def chromium(executable: str | None = None) -> Iterator[Browser]:
    """A headless Chromium for the block, with a throwaway profile."""
    path = executable or find_chromium()
    if path is None:
        raise FileNotFoundError("no Chromium found (install Debian's chromium package, or set ENF_CHROMIUM)")
    with tempfile.TemporaryDirectory(prefix="enf-chromium-") as profile:
        browser = Browser(path, Path(profile))
        try:
            yield browser
        finally:
            browser.close()


def wait_for(page: Page, expression: str, timeout: float = 10.0) -> Any:
    """Poll a JS expression until it is truthy; its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def skip_reason() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if find_chromium() is None:
        return ("no Chromium on this machine (apt-get install chromium, or set ENF_CHROMIUM "
                "to a Chromium or Chrome binary); .ci/run installs it")
    return None
