"""The built site in a real headless Chromium (selenium + Debian's chromium-driver), served over a real socket.

The index lists every benchmark of the ledger, a filter narrows the table, sorting reorders it, a record page
shows its verbatim quotes and audit findings, and no page logs a console error. Screenshots go to
``test-artifacts/``.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark
from benchledger.site import build_site
from benchledger.site.serve import make_server

from ledger_builder import BENCH_IDS, SCRIPT_QUOTE, write_tiny_ledger

pytestmark = pytest.mark.browser

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e .[test])")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    pytest.skip("headless Chromium is not installed (apt-get install chromium chromium-driver)",
                allow_module_level=True)

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars")


def chrome(profile: Path, size: tuple[int, int]) -> Iterator[webdriver.Chrome]:
    """A headless Chromium with its own empty profile at window ``size``; quit when the generator closes."""
    options = webdriver.ChromeOptions()
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={size[0]},{size[1]}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    yield from chrome(tmp_path_factory.mktemp("chromium-profile"), (1400, 1000))


def _serve(site: Path) -> Iterator[str]:
    server = make_server(site, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def bundled_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    site = build_site(bundled_ledger_dir(), tmp_path_factory.mktemp("bundled-site") / "site").out
    yield from _serve(site)


@pytest.fixture(scope="module")
def tiny_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    ledger = write_tiny_ledger(tmp_path_factory.mktemp("tiny-ledger"))
    site = build_site(ledger, tmp_path_factory.mktemp("tiny-site") / "site").out
    yield from _serve(site)


def console_errors(driver: webdriver.Chrome) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def visible_ids(driver: webdriver.Chrome) -> list[str]:
    rows = driver.find_elements(By.CSS_SELECTOR, "#records tbody tr")
    return [str(r.get_attribute("data-id")) for r in rows if r.is_displayed()]


def screenshot(driver: webdriver.Chrome, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    assert driver.save_screenshot(str(path))
    assert path.stat().st_size > 1000
    return path


def test_index_lists_every_record_and_a_filter_narrows_it(browser: webdriver.Chrome, bundled_url: str) -> None:
    benchmarks = Ledger.load(bundled_ledger_dir()).typed("benchmark", Benchmark)
    browser.get(bundled_url + "index.html")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Benchmark experiments"
    assert visible_ids(browser) == [b.id for b in benchmarks]
    assert browser.find_element(By.ID, "filters").is_displayed()  # the script ran and revealed the filters
    models = sorted({b.subject.model for b in benchmarks})
    model = max(models, key=lambda m: (sum(b.subject.model == m for b in benchmarks), m))
    expected = [b.id for b in benchmarks if b.subject.model == model]
    if len(expected) == len(benchmarks):
        pytest.fail("the bundled ledger has one model only; the filter test needs two")
    Select(browser.find_element(By.CSS_SELECTOR, "select[data-filter=model]")).select_by_value(model)
    assert visible_ids(browser) == expected
    counter = browser.find_element(By.ID, "shown-count").text
    assert counter == f"{len(expected)} of {len(benchmarks)} experiments shown"
    screenshot(browser, "site-index-filtered.png")
    browser.find_element(By.CSS_SELECTOR, "form.filters button[type=reset]").click()
    assert visible_ids(browser) == [b.id for b in benchmarks]
    assert console_errors(browser) == []


def test_sorting_a_column_reorders_rows(browser: webdriver.Chrome, tiny_url: str) -> None:
    browser.get(tiny_url + "index.html")
    assert visible_ids(browser) == list(BENCH_IDS)
    header = browser.find_elements(By.CSS_SELECTOR, "#records thead th")[0]
    header.find_element(By.CSS_SELECTOR, "button.sort").click()
    assert header.get_attribute("aria-sort") == "ascending"
    header.find_element(By.CSS_SELECTOR, "button.sort").click()
    assert header.get_attribute("aria-sort") == "descending"
    assert visible_ids(browser) == sorted(BENCH_IDS, reverse=True)
    Select(browser.find_element(By.CSS_SELECTOR, "select[data-filter=spec]")).select_by_value("mtp")
    assert visible_ids(browser) == [BENCH_IDS[0]]
    search = browser.find_element(By.CSS_SELECTOR, "input[data-filter=text]")
    search.send_keys("no such experiment")
    assert visible_ids(browser) == []
    assert console_errors(browser) == []


def test_record_page_shows_quotes_and_findings(browser: webdriver.Chrome, tiny_url: str) -> None:
    browser.get(tiny_url + f"benchmarks/{BENCH_IDS[0]}.html")
    title = browser.find_element(By.TAG_NAME, "h1").text
    assert title == "Tiny <b>MTP</b> & friends <script>alert('title')</script>"  # rendered as text
    quotes = [q.text for q in browser.find_elements(By.CSS_SELECTOR, "#evidence ~ ol.evidence blockquote.quote")]
    assert SCRIPT_QUOTE in quotes and "| 1 | mtp k=3 | 80.0 |" in quotes
    link = browser.find_element(By.CSS_SELECTOR, "ol.evidence a[href='../sources/tiny-src.html']")
    findings = browser.find_element(By.CSS_SELECTOR, "table.findings").text
    assert "conditions.missing-without-reason" in findings
    assert "Body text <script>alert('body')</script>" in browser.find_element(By.CSS_SELECTOR, ".body-md").text
    speedups = browser.find_element(By.CSS_SELECTOR, "table.arms").text
    assert "1.600×" in speedups and "0.800×" in speedups
    screenshot(browser, "site-record-tiny.png")
    link.click()
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith("Tiny source <script>")
    assert "matches" in browser.find_element(By.CSS_SELECTOR, "dl.facts").text
    assert console_errors(browser) == []


def test_every_kind_of_page_loads_without_console_errors(browser: webdriver.Chrome, bundled_url: str) -> None:
    ledger = Ledger.load(bundled_ledger_dir())
    record = ledger.typed("benchmark", Benchmark)[0]
    pages = ["plots/index.html", "plots/speedup.html", "plots/pareto.html", "plots/efficiency.html",
             "plots/coverage.html", f"benchmarks/{record.id}.html", "engines/index.html", "sources/index.html"]
    pages += [f"{folder}/{ledger.of_kind(kind)[0].id}.html" for kind, folder in
              (("engine", "engines"), ("accelerator", "accelerators"), ("source", "sources")) if ledger.of_kind(kind)]
    for page in pages:
        browser.get(bundled_url + page)
        assert browser.find_element(By.TAG_NAME, "h1").text, page
        assert console_errors(browser) == [], page
    browser.get(bundled_url + f"benchmarks/{record.id}.html")
    screenshot(browser, "site-record-bundled.png")


def test_index_is_readable_at_phone_width(browser: webdriver.Chrome, bundled_url: str) -> None:
    browser.set_window_size(390, 844)
    try:
        browser.get(bundled_url + "index.html")
        body_width = browser.execute_script("return document.documentElement.scrollWidth")
        assert body_width <= 400  # the page does not overflow; the wide table scrolls inside its box
        wrap = browser.find_element(By.CSS_SELECTOR, ".table-wrap")
        assert browser.execute_script("return getComputedStyle(arguments[0]).overflowX", wrap) == "auto"
        screenshot(browser, "site-index-phone.png")
    finally:
        browser.set_window_size(1400, 1000)
