"""What a reader needs on each kind of page and plot, in a real headless Chromium at a 1366 px laptop width:
key columns within the viewport, every legend entry present, no text box over another, every arm reachable.
Screenshots go to ``test-artifacts/`` (the README's come from ``docs/img/``)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from test_site_browser import _serve, chrome, console_errors, screenshot, webdriver

from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.site import build_site

pytestmark = pytest.mark.browser
LAPTOP = (1366, 768)
OVERLAPS = """
// rotated labels (coverage columns, the y-axis title) are parallel diagonals whose axis-aligned boxes overlap
// without their glyphs touching: only upright text is compared
const boxes = Array.from(arguments[0].querySelectorAll('text')).filter(t => !t.hasAttribute('transform'))
  .map(t => t.getBoundingClientRect())
  .filter(b => b.width > 0 && b.height > 0);
const hits = [];
for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
  const a = boxes[i], b = boxes[j];
  const dx = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const dy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  if (dx > 1 && dy > 1) hits.push([i, j]);
}
return hits.length;
"""


@pytest.fixture(scope="module")
def laptop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    yield from chrome(tmp_path_factory.mktemp("chromium-profile-laptop"), LAPTOP)


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _serve(build_site(bundled_ledger_dir(), tmp_path_factory.mktemp("reader-site") / "site").out)


def width(driver: webdriver.Chrome) -> int:
    return int(driver.execute_script("return document.documentElement.clientWidth"))


def rect(driver: webdriver.Chrome, element: Any) -> dict[str, float]:
    return dict(driver.execute_script("return arguments[0].getBoundingClientRect().toJSON()", element))


def test_index_shows_speedup_efficiency_and_audit_at_laptop_width(laptop: webdriver.Chrome, url: str) -> None:
    laptop.get(url + "index.html")
    headers = {h.text.rstrip(" ↕"): h for h in laptop.find_elements(By.CSS_SELECTOR, "#records thead th")}
    for name in ("Experiment", "Speedup vs baseline", "Efficiency vs ceiling", "Audit"):
        assert rect(laptop, headers[name])["right"] <= width(laptop), name
    text = laptop.find_element(By.ID, "records").text
    assert "offline" in text and not re.search(r"\binf\b", text)  # unbounded concurrency reads 'offline'
    assert "n/a (concurrency unknown)" in text
    screenshot(laptop, "site-index-laptop.png")
    # sorting the headline groups metrics: tok/s, req/s and ms never interleave
    headers["Headline metric"].find_element(By.CSS_SELECTOR, "button.sort").click()
    column = list(headers).index("Headline metric")
    units = [(r.find_elements(By.CSS_SELECTOR, "th, td")[column].get_attribute("data-sort") or "").split(" ")[:2]
             for r in laptop.find_elements(By.CSS_SELECTOR, "#records tbody tr")]
    groups = [tuple(u) for u in units if len(u) == 2]
    changes = sum(1 for a, b in itertools.pairwise(groups) if a != b)
    assert changes == len(set(groups)) - 1  # each (metric, unit) one contiguous block
    assert console_errors(laptop) == []


@pytest.mark.parametrize("page", ["speedup", "pareto", "efficiency", "coverage"])
def test_each_plot_has_its_legend_and_no_overlapping_text(laptop: webdriver.Chrome, url: str, page: str) -> None:
    laptop.get(url + f"plots/{page}.html")
    charts = laptop.find_elements(By.CSS_SELECTOR, "#plot-list svg.chart, section svg.chart")
    assert charts, page
    for chart in charts:
        series = {g.get_attribute("data-series") for g in chart.find_elements(By.CSS_SELECTOR, "g.series")}
        legend = {g.get_attribute("data-series") for g in chart.find_elements(By.CSS_SELECTOR, "g.legend-entry")}
        assert series <= legend, chart.get_attribute("id")
        assert laptop.execute_script(OVERLAPS, chart) == 0, chart.get_attribute("id")
    screenshot(laptop, f"site-plots-{page}.png")
    assert console_errors(laptop) == []


def test_the_speedup_page_has_contents_and_filters(laptop: webdriver.Chrome, url: str) -> None:
    laptop.get(url + "plots/speedup.html")
    toc = laptop.find_elements(By.CSS_SELECTOR, "nav.toc a")
    sections = laptop.find_elements(By.CSS_SELECTOR, "#plot-list > section")
    singles = laptop.find_elements(By.CSS_SELECTOR, "table.single-points tbody tr")
    assert len(toc) == len(sections) + (1 if singles else 0)
    select = Select(laptop.find_element(By.CSS_SELECTOR, "#plot-filters select[data-filter=hardware]"))
    hardware = sections[0].get_attribute("data-hardware")
    select.select_by_value(hardware)
    shown = [s for s in sections if s.is_displayed()]
    assert shown and all(s.get_attribute("data-hardware") == hardware for s in shown)
    assert all(s.get_attribute("data-hardware") == hardware for s in singles if s.is_displayed())
    assert console_errors(laptop) == []


def test_every_arm_of_a_wide_record_is_reachable(laptop: webdriver.Chrome, url: str) -> None:
    laptop.get(url + "benchmarks/autobench-qwen3.8-27b-nvfp4-gb10-mtp3-concurrency.html")
    wrap = laptop.find_element(By.CSS_SELECTOR, "#arms ~ .table-wrap")
    first = laptop.find_element(By.CSS_SELECTOR, "table.arms tbody th[scope=row]")
    left = rect(laptop, first)["left"]
    laptop.execute_script("arguments[0].scrollLeft = arguments[0].scrollWidth", wrap)
    assert rect(laptop, first)["left"] == pytest.approx(left, abs=1)  # the field column stays in view
    last = laptop.find_elements(By.CSS_SELECTOR, "table.arms thead th")[-1]
    assert rect(laptop, last)["right"] <= rect(laptop, wrap)["right"] + 1
    cell = laptop.find_element(By.XPATH, "//table[@class='arms']//tr[th[starts-with(., 'output_throughput')]]/td")
    digits = sum(c.isdigit() for c in cell.text.split(" ")[0])
    assert digits <= 4 or cell.text.split(" ")[0].isdigit()  # 3–4 significant figures; full value on hover
    assert cell.get_attribute("title")
    screenshot(laptop, "site-record-wide.png")
    assert console_errors(laptop) == []


@pytest.mark.parametrize("page", ["models/qwen3.8-27b.html", "accelerators/nvidia-gb10.html"])
def test_model_and_hardware_pages_list_their_experiments(laptop: webdriver.Chrome, url: str, page: str) -> None:
    laptop.get(url + page)
    table = laptop.find_element(By.CSS_SELECTOR, "table.experiments")
    heads = [h.text.rstrip(" ↕") for h in table.find_elements(By.CSS_SELECTOR, "thead th")]
    assert {"Model", "Hardware × count", "Context (input tok)", "Concurrency", "Speedup vs baseline"} <= set(heads)
    assert len(table.find_elements(By.CSS_SELECTOR, "tbody tr")) > 1
    assert console_errors(laptop) == []
