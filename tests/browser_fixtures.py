"""A real service and a real Chromium for the web console's tests (Debian's /usr/bin/chromium).

Playwright drives the system browser; nothing is ever downloaded. The service runs over a
SQLite file in the test's tmp_path (browser tests keep to SQLite to keep CI time down).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from referee.rng import Entropy
from referee.service.app import CONSOLE_CSP
from tests.conftest import need
from tests.service_fixtures import LiveServer, start_server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: The strict policy the service sends with every console page: the pages must work under it.
CSP = CONSOLE_CSP
PAGE_URL = re.compile(r"^http://127\.0\.0\.1:\d+/(static/[\w-]+\.html)?$")
#: Screenshots are written only when this names a directory (`make screenshots` sets it to
#: docs/screenshots); an ordinary test run writes nothing into the repository.
SCREENSHOTS_ENV = "REFEREE_SCREENSHOTS"
#: How long a page waits for anything (ms): generous, since tests wait for events, not time.
WAIT_MS = 20_000
#: Phone width and a desktop width for screenshots and layout checks.
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def web(tmp_path: Path, entropy: Entropy) -> Iterator[LiveServer]:
    """The service over a fresh SQLite file (server seeds from the `entropy` fixture)."""
    server, thread, store, url = start_server(f"sqlite:///{tmp_path / 'web.db'}", entropy=entropy)
    with httpx.Client(base_url=url, timeout=60) as client:
        yield LiveServer(url, store, client)
    server.stop()
    thread.join(10)
    store.close()


@pytest.fixture
def web_on_each(db_url: str, entropy: Entropy) -> Iterator[LiveServer]:
    """`web` over a fresh SQLite file, then a fresh PostgreSQL schema (`db_url`)."""
    server, thread, store, url = start_server(db_url, entropy=entropy)
    with httpx.Client(base_url=url, timeout=60) as client:
        yield LiveServer(url, store, client)
    server.stop()
    thread.join(10)
    store.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium through Playwright's sync API (skipped here, failed in CI, when missing).

    One browser per test module; each page gets its own context (see `new_page`).
    """
    need(os.path.exists(CHROMIUM), "Chromium")
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:  # pragma: no cover - playwright is a dev dependency
        need(False, "Playwright")
        raise
    # `expect(...)` waits 5 s by default, which a loaded CI machine can miss; every wait is
    # for an event, so it may be as generous as the pages' own.
    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def pages(browser: Any, web: LiveServer) -> Iterator[Callable[..., Any]]:
    """A factory of pages (`pages()` or `pages(PHONE)`), each in its own browser context.

    The contexts are closed before the server stops, so no live stream holds it up.
    """
    opened: list[Any] = []

    def make(viewport: dict[str, int] | None = None) -> Any:
        page = new_page(browser, viewport)
        opened.append(page.context)
        return page

    yield make
    for context in opened:
        context.close()


def new_page(browser: Any, viewport: dict[str, int] | None = None) -> Any:
    """A page in its own context (its own session storage, like another person's browser).

    Any request that leaves 127.0.0.1 fails the test: every asset is served locally.
    """
    context = browser.new_context(viewport=viewport or DESKTOP)
    context.route(PAGE_URL, _with_csp)
    return watched(context.new_page())


def another_tab(page: Any) -> Any:
    """A new page in `page`'s context: another tab of the same browser (the same storage)."""
    return watched(page.context.new_page())


def watched(page: Any) -> Any:
    """The page with what `clean` checks recorded: requests leaving 127.0.0.1, JavaScript
    errors, CSP violations, and anything but an API answer that is a 404 (a missing asset, a
    favicon)."""
    page.set_default_timeout(WAIT_MS)
    outside: list[str] = []
    page.on(
        "request",
        lambda r: (
            None
            if r.url.startswith(("http://127.0.0.1", "data:", "blob:"))
            else outside.append(r.url)
        ),
    )
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "console",
        lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
    )
    missing: list[str] = []
    page.on(
        "response",
        lambda r: missing.append(r.url) if r.status == 404 and "/api/" not in r.url else None,
    )
    page.outside_requests = outside
    page.js_errors = errors
    page.missing = missing
    return page


def _with_csp(route: Any) -> None:
    response = route.fetch()
    headers = {**response.headers, "content-security-policy": CSP}
    route.fulfill(response=response, headers=headers)


def shoot(page: Any, name: str) -> None:
    """Save a full-page screenshot as NAME.png in $REFEREE_SCREENSHOTS (`make screenshots`);
    without it, do nothing."""
    folder = os.environ.get(SCREENSHOTS_ENV)
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def clean(page: Any) -> None:
    """Assert the page made no request outside 127.0.0.1, threw no JavaScript error, broke no
    rule of the Content-Security-Policy and found every asset it asked for (no 404)."""
    assert page.outside_requests == [], page.outside_requests
    assert page.js_errors == [], page.js_errors
    assert page.missing == [], page.missing
