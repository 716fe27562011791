"""Render every page of the site with Jinja2 (autoescape on, strict undefined) into ``(path, html)`` pairs.

Paths are relative to the site root; each page gets ``root`` (``""`` or ``"../"``) so every link is relative
and the site works from ``file://`` as well as from ``benchledger site serve``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import jinja2

from benchledger.schema import KIND_FOLDERS, Accelerator, Engine, Format, ModelArch, Source
from benchledger.site.context import HEADLINE_METRICS, SiteData
from benchledger.site.downloads import Download
from benchledger.site.evidence import collect_evidence, format_number
from benchledger.site.index_view import IndexRow, build_index_row
from benchledger.site.markdown import render_markdown
from benchledger.site.plots import Plot, metric_definitions
from benchledger.site.record_view import build_record_view
from benchledger.site.reference_view import EFFECT_RULE, engine_effects, reference_facts, uses

Page = tuple[str, str]
FILTERS: tuple[tuple[str, str], ...] = (
    ("model", "Model"), ("hardware", "Hardware"), ("engine", "Engine"), ("spec", "Spec method"), ("format", "Format"),
)
PLOT_FILTERS: tuple[tuple[str, str], ...] = (("model", "Model"), ("hardware", "Hardware"), ("engine", "Engine"))
PLOT_PAGES: dict[str, tuple[str, str]] = {
    "speedup": ("Speculative speedup vs concurrency and context",
                "Per (model, hardware, engine): the derived speedup of each speculative arm over its no-speculation "
                "baseline arm, against concurrency and against input length. Hover a point for its conditions; "
                "click it for the experiment."),
    "pareto": ("Throughput per device vs tok/s per user",
               "Per model: each arm's output tokens per second per device against the decode rate one user sees. "
               "Upper right is better; lines join each series' Pareto front."),
    "efficiency": ("Efficiency vs the physical ceiling",
                   "Measured throughput as a share of the roofline ceiling the physics model computes for the same "
                   "hardware, model, format and load."),
    "coverage": ("Condition coverage",
                 "Which of the seven load conditions each experiment states, which it explains as unknown, and "
                 "which are missing."),
}


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The Jinja2 environment over the packaged templates."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("benchledger.site", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


class PageRenderer:
    """Renders the pages of one site build."""

    def __init__(self, data: SiteData) -> None:
        self.data = data
        self.env = environment()
        self.site = {"record_count": len(data.ledger), "digest": data.ledger_digest}
        self.kind_of = {r.id: KIND_FOLDERS[r.kind] for r in data.ledger}
        self.uses = uses(data.benchmarks)
        self.rows = {b.id: build_index_row(data, b) for b in data.benchmarks}

    def _render(self, template: str, root: str, title: str, **context: Any) -> str:
        return self.env.get_template(template).render(root=root, page_title=title, site=self.site, **context)

    def index(self, downloads: list[Download]) -> Page:
        rows = [self.rows[b.id] for b in self.data.benchmarks]
        filters = [{"key": key, "label": label, "options": _filter_values(rows, key)} for key, label in FILTERS]
        html = self._render("index.html", "", "Benchmark experiments", rows=rows, filters=filters,
                            downloads=downloads, headline_metrics=HEADLINE_METRICS)
        return "index.html", html

    def benchmarks(self, plots: list[Plot]) -> Iterator[Page]:
        by_record: dict[str, list[Plot]] = {}
        for plot in plots:
            for rid in plot.records:
                by_record.setdefault(rid, []).append(plot)
        for record in self.data.benchmarks:
            view = build_record_view(self.data, record)
            yield f"benchmarks/{record.id}.html", self._render(
                "benchmark.html", "../", record.title, view=view, body=render_markdown(record.body),
                plots=by_record.get(record.id, []),
            )

    def sources(self) -> Iterator[Page]:
        for source in self.data.sources.values():
            body_sha = hashlib.sha256(source.body.encode("utf-8")).hexdigest()
            yield f"sources/{source.id}.html", self._render(
                "source.html", "../", source.title, source=source, body_sha=body_sha,
                excerpt=render_markdown(source.body), cited_by=self.data.cited_by.get(source.id, []),
                kind_of=self.kind_of, findings=self.data.findings.get(source.id, []),
            )

    def references(self) -> Iterator[Page]:
        labels = {"accelerator": "Accelerator", "model": "Model architecture", "format": "Numeric format",
                  "engine": "Inference engine", "interconnect": "Interconnect",
                  "calibration": "Physics-model calibration"}
        for kind, label in labels.items():
            for record in self.data.ledger.of_kind(kind):
                evidence = collect_evidence(record, record.sources[0] if record.sources else "")
                claims = None
                effects = None
                if isinstance(record, Engine):
                    claims = [{"feature": c.feature, "methods": c.methods, "quote": c.quote,
                               "source": c.source or (record.sources[0] if record.sources and c.quote else "")}
                              for c in record.claims]
                    effects = engine_effects(self.data, record)
                yield f"{KIND_FOLDERS[kind]}/{record.id}.html", self._render(
                    "reference.html", "../", record.title, record=record, kind_label=label,
                    facts=reference_facts(record, evidence), evidence=evidence, claims=claims, effects=effects,
                    effect_rule=EFFECT_RULE, used_by=[self.rows[r] for r in self.uses.get(record.id, [])
                                                      if r in self.rows],
                    body=render_markdown(record.body), findings=self.data.findings.get(record.id, []),
                )

    def lists(self) -> Iterator[Page]:
        led = self.data.ledger
        specs: list[tuple[str, str, str, list[str], Any]] = [
            ("accelerators", "Accelerators", "Accelerators with their memory, bandwidth and peak compute.",
             ["Id", "Name", "Vendor", "Memory", "Bandwidth", "Experiments"],
             lambda a: [a.name, a.vendor, _q(a.memory_gb), _q(a.memory_bandwidth_gbs), len(self.uses.get(a.id, []))]),
            ("models", "Models", "Model architectures: what a decode step reads and computes.",
             ["Id", "Name", "Attention", "Params total", "Params active", "Experiments"],
             lambda m: [m.name, m.attention, _q(m.params_total), _q(m.params_active) if m.params_active else "—",
                        len(self.uses.get(m.id, []))]),
            ("formats", "Formats", "Weight and KV-cache formats with their real storage cost, scales included.",
             ["Id", "Name", "Applies to", "Bits / element", "Bytes / param", "Experiments"],
             lambda f: [f.name, ", ".join(f.applies_to), _q(f.bits_per_element), _q(f.bytes_per_param),
                        len(self.uses.get(f.id, []))]),
            ("engines", "Engines", "Inference engines: claimed features next to measured speculative-decoding effects.",
             ["Id", "Name", "Claimed features", "Experiments"],
             lambda e: [e.name, ", ".join(c.feature for c in e.claims) or "—", len(self.uses.get(e.id, []))]),
            ("sources", "Sources", "Every source document, with its stored excerpt, URL, retrieval date and sha256.",
             ["Id", "Title", "Type", "Retrieved", "Cited by"],
             lambda s: [s.title, s.source_type, str(s.retrieved), len(self.data.cited_by.get(s.id, []))]),
        ]
        kinds = {"accelerators": Accelerator, "models": ModelArch, "formats": Format, "engines": Engine,
                 "sources": Source}
        for folder, heading, lede, columns, cells in specs:
            records = [r for r in led.records.values() if isinstance(r, kinds[folder])]
            rows = [{"id": r.id, "href": f"{r.id}.html", "cells": cells(r)} for r in sorted(records, key=lambda r: r.id)]
            yield f"{folder}/index.html", self._render("list.html", "../", heading, heading=heading, lede=lede,
                                                       columns=columns, rows=rows)

    def plot_pages(self, plots: list[Plot]) -> Iterator[Page]:
        pages = [{"page": page, "heading": heading, "count": sum(1 for p in plots if p.page == page)}
                 for page, (heading, _) in PLOT_PAGES.items()]
        yield "plots/index.html", self._render(
            "plots.html", "../", "Plots", heading="Plots", plot_pages=pages, note="",
            lede="Static SVG plots built from the ledger. Every axis states its metric and unit; every point links "
                 "to the experiment behind it.", plots=[p for p in plots if p.page == "coverage"],
            show_definitions=True, definitions=metric_definitions(), single=[], filters=[],
        )
        for page, (heading, lede) in PLOT_PAGES.items():
            chosen = [p for p in plots if p.page == page]
            note = "" if chosen else (self.data.physics_note if page == "efficiency" and self.data.physics_note
                                      else "No experiment in this ledger has the data this plot needs.")
            drawn = [p for p in chosen if len(p.points) != 1]
            single = [{"heading": p.heading, "label": p.points[0][0], "href": p.points[0][1], "slug": p.slug,
                       "facets": dict(p.facets)} for p in chosen if len(p.points) == 1]
            keys = [k for k, _ in PLOT_FILTERS if any(k in dict(p.facets) for p in chosen)]
            filters = [{"key": k, "label": dict(PLOT_FILTERS)[k],
                        "options": sorted({dict(p.facets)[k] for p in chosen if k in dict(p.facets)})} for k in keys]
            yield f"plots/{page}.html", self._render(
                "plots.html", "../", heading, heading=heading, lede=lede, plot_pages=pages, note=note,
                plots=drawn, single=single, filters=filters if len(chosen) > 3 else [], show_definitions=False,
                definitions=[],
            )


def _filter_values(rows: list[IndexRow], key: str) -> list[str]:
    return sorted({v for row in rows for v in row.filters[key].split("|") if v})


def _q(value: Any) -> str:
    if value is None:
        return "—"
    if hasattr(value, "unknown"):
        return "unknown"
    return f"{format_number(float(value.value))} {value.unit}"


__all__ = ["FILTERS", "PLOT_PAGES", "Page", "PageRenderer", "environment"]
