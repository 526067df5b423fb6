"""The browser harness itself (tests/browser.py): what it reports must be what the page did,
or the dashboard's browser tests would pass for the wrong reason."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import browser

pytestmark = pytest.mark.skipif(browser.skip_reason() is not None, reason=browser.skip_reason() or "")


@pytest.fixture(scope="module")
def chrome() -> Iterator[browser.Browser]:
    with browser.chromium() as running:
        yield running


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """tmp_path served over http on 127.0.0.1: its base URL."""
    handler = lambda *args: http.server.SimpleHTTPRequestHandler(*args, directory=str(tmp_path))  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.RequestHandlerClass.log_message = lambda *args: None  # type: ignore[method-assign]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _page(tmp_path: Path, body: str) -> str:
    path = tmp_path / "page.html"
    path.write_text(f'<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">'
                    f"<title>t</title></head><body>{body}</body></html>", encoding="utf-8")
    return path.as_uri()


def test_a_quiet_page_reports_no_error_and_only_its_own_request(chrome: browser.Browser, tmp_path: Path) -> None:
    url = _page(tmp_path, '<p id="x">hello</p><svg><rect width="3" height="4"/></svg>')
    page = chrome.new_page()
    page.goto(url)
    assert page.errors == []
    assert page.requests == [url]
    assert page.evaluate("document.getElementById('x').textContent") == "hello"
    assert page.evaluate("document.querySelectorAll('svg rect').length") == 1


def test_console_errors_and_uncaught_exceptions_are_reported(chrome: browser.Browser, tmp_path: Path) -> None:
    page = chrome.new_page()
    page.goto(_page(tmp_path, "<script>console.error('first', 2); console.log('not an error');</script>"
                              "<script>null.field;</script>"))
    assert page.errors[0] == "console: first 2"
    assert len(page.errors) == 2 and page.errors[1].startswith("exception: TypeError")


def test_every_request_is_reported(chrome: browser.Browser, tmp_path: Path, served: str) -> None:
    (tmp_path / "page.html").write_text('<!doctype html><link rel="icon" href="data:,"><img src="/pixel.png">'
                                        "<script>fetch('/data.json').catch(() => 0)</script>")
    page = chrome.new_page()
    page.goto(f"{served}/page.html")
    browser.wait_for(page, "performance.getEntriesByType('resource').length >= 2")
    assert sorted(page.requests) == [f"{served}/data.json", f"{served}/page.html", f"{served}/pixel.png"]
    assert any("404" in error for error in page.errors)  # both are missing: Chromium logs them


def test_screenshot_is_a_png_of_the_page(chrome: browser.Browser, tmp_path: Path) -> None:
    page = chrome.new_page(width=400, height=300)
    page.goto(_page(tmp_path, '<div style="height:1200px;background:#c00"></div>'))
    shot = page.screenshot(tmp_path / "shot.png")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width == 400 and height >= 1200  # the whole document, not the viewport


def test_color_scheme_and_timing(chrome: browser.Browser, tmp_path: Path) -> None:
    page = chrome.new_page()
    page.color_scheme("dark")
    page.goto(_page(tmp_path, "<script>performance.mark('drawn')</script><p>x</p>"))
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") is True
    timing = page.timing()
    assert [mark["name"] for mark in timing["mark"]] == ["drawn"]
    assert timing["navigation"] and timing["navigation"][0]["loadEventEnd"] > 0


def test_a_script_error_in_evaluate_raises(chrome: browser.Browser, tmp_path: Path) -> None:
    page = chrome.new_page()
    page.goto(_page(tmp_path, ""))
    with pytest.raises(browser.ProtocolError, match="ReferenceError"):
        page.evaluate("missing.name")
