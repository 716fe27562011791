"""The static site: deterministic bytes, escaped strings, nothing loaded from the network, complete index."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import pytest

from benchledger.errors import LedgerError
from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.ledger.store import Ledger
from benchledger.site import build_site
from benchledger.site.build import MARKER

from ledger_builder import BENCH_IDS, write_tiny_ledger

RESOURCE_ATTRS = {"src", "srcset", "poster", "data", "action", "formaction", "background", "xlink:href"}


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


class ResourceScanner(HTMLParser):
    """Collects every URL a page would *load* (scripts, styles, images, fonts, frames) — not plain links."""

    def __init__(self) -> None:
        super().__init__()
        self.loads: list[str] = []
        self.links: list[str] = []
        self.scripts_inline: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        for name, value in values.items():
            if name in RESOURCE_ATTRS or name.startswith("on"):
                self.loads.append(f"{tag}[{name}]={value}")
        if tag == "link":
            self.loads.append(f"link[href]={values.get('href', '')}")
        elif tag in ("a", "area") and "href" in values:
            self.links.append(values["href"])
        elif tag in ("image", "use", "feimage") and "href" in values:
            self.loads.append(f"{tag}[href]={values['href']}")
        if tag == "script":
            self._in_script = "src" not in values

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.scripts_inline.append(data)


@pytest.fixture(scope="module")
def bundled_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_site(bundled_ledger_dir(), tmp_path_factory.mktemp("bundled") / "site").out


@pytest.fixture(scope="module")
def tiny_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ledger = write_tiny_ledger(tmp_path_factory.mktemp("tiny-ledger"))
    return build_site(ledger, tmp_path_factory.mktemp("tiny") / "site").out


def test_same_ledger_builds_identical_bytes(bundled_site: Path, tmp_path: Path) -> None:
    again = build_site(bundled_ledger_dir(), tmp_path / "again").out
    first, second = tree(bundled_site), tree(again)
    assert sorted(first) == sorted(second)
    differing = [name for name in first if first[name] != second[name]]
    assert differing == []
    assert any(name.endswith(".parquet") for name in first) and any(name.endswith(".svg") for name in first)


def test_a_changed_record_changes_the_output(tmp_path: Path) -> None:
    ledger = write_tiny_ledger(tmp_path / "ledger")
    before = tree(build_site(ledger, tmp_path / "a").out)
    path = ledger / "benchmarks" / f"{BENCH_IDS[1]}.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Tiny plain run", "Tiny plain run, renamed"),
                    encoding="utf-8")
    after = tree(build_site(ledger, tmp_path / "b").out)
    assert before[f"benchmarks/{BENCH_IDS[1]}.html"] != after[f"benchmarks/{BENCH_IDS[1]}.html"]
    assert b"Tiny plain run, renamed" in after["index.html"]


@pytest.mark.parametrize("which", ["bundled", "tiny"])
def test_no_page_loads_anything_from_the_network(which: str, request: pytest.FixtureRequest) -> None:
    site: Path = request.getfixturevalue(f"{which}_site")
    pages = sorted(site.rglob("*.html")) + sorted(site.rglob("*.svg"))
    assert pages
    external = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)
    for page in pages:
        scanner = ResourceScanner()
        scanner.feed(page.read_text(encoding="utf-8"))
        remote = [load for load in scanner.loads if external.match(load.split("=", 1)[1])]
        assert remote == [], f"{page}: loads remote resources {remote}"
        assert scanner.scripts_inline == [], f"{page}: inline script"
        for load in scanner.loads:
            assert not load.split("=", 1)[0].split("[")[1].startswith("on"), f"{page}: event handler {load}"
    for asset in sorted(site.rglob("*.css")) + sorted(site.rglob("*.js")):
        text = asset.read_text(encoding="utf-8")
        assert "@import" not in text and not re.search(r"url\(\s*['\"]?(https?:)?//", text), asset
        assert "http://" not in text and "https://" not in text, asset


def test_every_benchmark_of_the_ledger_is_in_the_index(bundled_site: Path) -> None:
    ids = [r.id for r in Ledger.load(bundled_ledger_dir()).of_kind("benchmark")]
    assert ids, "the bundled ledger has benchmark records"
    index = (bundled_site / "index.html").read_text(encoding="utf-8")
    rows = re.findall(r'<tr data-id="([^"]+)"', index)
    assert rows == ids
    for record_id in ids:
        assert (bundled_site / "benchmarks" / f"{record_id}.html").is_file()


def test_record_strings_and_markdown_are_escaped(tiny_site: Path) -> None:
    page = (tiny_site / "benchmarks" / f"{BENCH_IDS[0]}.html").read_text(encoding="utf-8")
    assert "<script>alert" not in page and "<img src=x" not in page and "<b>MTP</b>" not in page
    assert "&lt;script&gt;alert(&#39;quote&#39;)&lt;/script&gt;" in page  # the verbatim quote, as text
    assert "Body text &lt;script&gt;alert(&#39;body&#39;)&lt;/script&gt;" in page or \
        "Body text &lt;script&gt;alert('body')&lt;/script&gt;" in page  # Markdown body, raw HTML as text
    assert "&lt;img src=x onerror=alert" in page
    source = (tiny_site / "sources" / "tiny-src.html").read_text(encoding="utf-8")
    assert "<script>alert" not in source and "&lt;script&gt;alert" in source
    for page_path in tiny_site.rglob("*.html"):
        text = page_path.read_text(encoding="utf-8")
        scripts = re.findall(r"<script\b[^>]*>", text)
        assert all('src="' in tag and "static/site.js" in tag for tag in scripts), page_path


def test_record_page_shows_quotes_sources_findings_and_unknowns(tiny_site: Path) -> None:
    page = (tiny_site / "benchmarks" / f"{BENCH_IDS[0]}.html").read_text(encoding="utf-8")
    assert "| 1 | mtp k=3 | 80.0 |" in page and 'href="../sources/tiny-src.html"' in page
    assert "unknown — the source does not say" in page  # output_tokens: source_omits
    assert "not in &lt;the&gt; table" in page  # its note, escaped
    assert "not recorded" in page  # warmup is absent: shown, never blank
    assert "conditions.missing-without-reason" in page and "workload.warmup" in page  # the audit's finding
    assert "1.600×" in page and "0.800×" in page  # derived speedups from the comparisons view: 80/50, 120/150


def test_engine_page_puts_claims_next_to_measured_effects(tiny_site: Path) -> None:
    page = (tiny_site / "engines" / "tiny-engine.html").read_text(encoding="utf-8")
    assert "We support speculative decoding (MTP)." in page
    assert "1 speculative arms helped, 1 hurt, 0 showed no clear change" in page


def test_downloads_hold_the_ledger(tiny_site: Path) -> None:
    index = (tiny_site / "index.html").read_text(encoding="utf-8")
    for name in ("ledger.json", "results.csv", "results.parquet", "comparisons.parquet", "arms.csv",
                 "spec_outcomes.csv", "spec_outcomes.parquet"):
        assert f'href="downloads/{name}"' in index
        assert (tiny_site / "downloads" / name).stat().st_size > 0
    records = json.loads((tiny_site / "downloads" / "ledger.json").read_text(encoding="utf-8"))["records"]
    assert {r["id"] for r in records} >= set(BENCH_IDS)
    con = duckdb.connect()
    parquet = str(tiny_site / "downloads" / "results.parquet")
    csv = str(tiny_site / "downloads" / "results.csv")
    assert con.execute("SELECT count(*) FROM read_parquet(?)", [parquet]).fetchone() == (5,)
    assert con.execute("SELECT count(*) FROM read_csv(?)", [csv]).fetchone() == (5,)
    speedups = con.execute(
        "SELECT arm, round(speedup, 3) FROM read_parquet(?) ORDER BY arm",
        [str(tiny_site / "downloads" / "comparisons.parquet")],
    ).fetchall()
    assert speedups == [("c1-mtp", 1.6), ("c4-mtp", 0.8)]


def test_plots_label_axes_and_have_titles(tiny_site: Path) -> None:
    svgs = sorted((tiny_site / "plots").glob("*.svg"))
    assert {p.name.split("--")[0].removesuffix(".svg") for p in svgs} >= {"speedup", "coverage"}
    for svg in svgs:
        text = svg.read_text(encoding="utf-8")
        assert 'role="img"' in text and "<title" in text and "<desc" in text
    speedup = next(p for p in svgs if p.name.startswith("speedup--concurrency--"))
    text = speedup.read_text(encoding="utf-8")
    assert "speedup on output_throughput" in text and "concurrency (requests in flight)" in text


def test_refuses_to_replace_a_folder_that_is_not_a_site(tmp_path: Path) -> None:
    ledger = write_tiny_ledger(tmp_path / "ledger")
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("do not delete", encoding="utf-8")
    with pytest.raises(LedgerError, match="not a benchledger site"):
        build_site(ledger, precious)
    assert (precious / "thesis.tex").read_text(encoding="utf-8") == "do not delete"
    site = build_site(ledger, tmp_path / "site").out
    assert (site / MARKER).is_file()
    (site / "stale.html").write_text("old", encoding="utf-8")
    build_site(ledger, site)
    assert not (site / "stale.html").exists()
    assert not [p for p in tmp_path.iterdir() if ".building-" in p.name or ".old-" in p.name]
