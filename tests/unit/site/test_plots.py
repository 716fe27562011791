"""What a reader of the plots needs: no line joins arms of different acceptance, every series named in full in a
legend below the plot, the reference line named in the legend (never a label over the data)."""

from __future__ import annotations

import re

import pytest

from benchledger.catalog.build import build_catalog
from benchledger.ledger import Ledger
from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.site.build import ledger_digest
from benchledger.site.context import SiteData, load_site_data
from benchledger.site.plots import acceptance_group, efficiency_plots, speedup_plots
from benchledger.site.svg import Axis, Point, Series, xy_chart


@pytest.fixture(scope="module")
def data() -> SiteData:
    ledger = Ledger.load(bundled_ledger_dir())
    return load_site_data(ledger, build_catalog(ledger, findings=[]), ledger_digest(ledger))


def test_no_speedup_line_joins_high_and_low_acceptance(data: SiteData) -> None:
    plots = {p.slug: p for p in speedup_plots(data)}
    b60 = plots["speedup--input_tokens--qwen3.8-27b--intel-arc-pro-b60--llm-scaler-vllm"]
    groups = re.findall(r'<g class="series" data-series="([^"]*)">(.*?)</g>', b60.svg, re.S)
    assert groups
    for name, body in groups:
        rates = [float(r) for r in re.findall(r"acceptance rate ([0-9.]+)", body)]
        assert len({acceptance_group({"acceptance_rate": r}) for r in rates}) == 1, name
        assert acceptance_group({"acceptance_rate": rates[0]}) in name
    assert any("high acceptance" in n for n, _ in groups) and any("low acceptance" in n for n, _ in groups)


def test_acceptance_group_from_length_when_rate_unknown() -> None:
    assert acceptance_group({"acceptance_rate": None, "acceptance_length": 4.0, "spec_k": 4}) == "high acceptance"
    assert acceptance_group({"acceptance_rate": None, "acceptance_length": None}) == "acceptance ?"


def test_efficiency_is_one_small_plot_per_hardware(data: SiteData) -> None:
    plots = efficiency_plots(data)
    assert len(plots) > 1
    for p in plots:
        assert len(re.findall(r'<g class="series"', p.svg)) <= 12, p.slug  # not 27 series in one plot
        marks = re.findall(r'<g class="legend-entry"[^>]*>\n<(\w+) [^>]*fill="(#\w+)"', p.svg)
        assert marks and len(marks) == len(set(marks)), p.slug  # each series its own colour and marker
        assert dict(p.facets)["hardware"] in p.heading


def test_legend_names_every_series_in_full_below_the_plot() -> None:
    long = "draft-model k=4 · fp8-e4m3 · high acceptance · in 50000 · a-very-long-experiment-id-of-sixty-chars"
    series = [Series(long, (Point(1, 1.2, "a"), Point(2, 1.4, "b"))), Series("short", (Point(4, 0.9, "c"),))]
    svg = xy_chart(chart_id="c", title="t", desc="d", x_axis=Axis("x", log2=True), y_axis=Axis("y"),
                   series=series, reference_y=1.0, reference_label="1.0× = no change", height=380)
    entries = re.findall(r'<g class="legend-entry" data-series="([^"]*)">(.*?)</g>', svg, re.S)
    assert [e[0].replace("&amp;", "&") for e in entries] == [long, "short", "1.0× = no change"]
    for name, body in entries:
        lines = re.findall(r'<text x="[0-9.]+" y="([0-9.]+)">([^<]*)</text>', body)
        assert " ".join(t for _, t in lines) == name  # complete, never clipped
        assert all(float(y) > 380 for y, _ in lines)  # below the plot area
    assert "…" not in svg
    assert svg.count("1.0× = no change") == 2  # the legend entry and its data-series attribute only
