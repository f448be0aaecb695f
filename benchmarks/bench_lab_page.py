"""The lab page in Chromium: time from an edit of a formula to the redrawn heat map.

The page measures it itself (`window.refereeLab.latency`: from the first input event, through
its 25 ms debounce and POST /api/lab/analyse, to the redrawn heat map, ladder and tables);
the median of 10 edits is printed. Target: under 0.3 s. Needs /usr/bin/chromium.
Run: .venv/bin/python benchmarks/bench_lab_page.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.service_fixtures import start_server

EDITS = 10


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        server, thread, store, url = start_server(f"sqlite:///{folder}/bench.db")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
                )
                page = browser.new_page(bypass_csp=True)  # to read the page's own timing
                page.goto(f"{url}/static/lab.html")
                expect(page.locator("#heat-map")).to_have_attribute("data-version", "1")
                latencies = []
                for i in range(EDITS):
                    page.fill("#f-damage", f"min(5, ceil(roll / {11 + i % 5}))")
                    version = str(i + 2)
                    expect(page.locator("#heat-map")).to_have_attribute(
                        "data-version", version, timeout=60_000
                    )
                    latencies.append(float(page.evaluate("window.refereeLab.latency")))
                browser.close()
        finally:
            server.should_exit = True
            thread.join(10)
            store.close()
    median = statistics.median(latencies) / 1000
    low, high = min(latencies) / 1000, max(latencies) / 1000
    print(
        f"edit to redrawn heat map, median of {EDITS} edits: {median:.3f} s "
        f"(min {low:.3f} s, max {high:.3f} s; target < 0.3 s)"
    )


if __name__ == "__main__":
    main()
