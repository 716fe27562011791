"""``autobench``: config pages of gauravmm/autobench (YAML front matter + Markdown notes).

Each page becomes a source record (the page text is the stored excerpt) and one arm; every number is quoted
with the page line that states it. Pages given together that share model, checkpoint, engine, quant and context
form one experiment (e.g. base and MTP at c1 … c128); a speculative arm's baseline is the base arm at the same
concurrency. ``spec_acceptance`` free text is parsed into rate / mean length / per-position where it states them.
The run command's comment lines give completed/error counts and the TTFT/TPOT medians; the wrapper's positional
arguments (``bench-*-serving.sh <model> ctx conc num_prompts max_seconds max_tokens``) give the prompt cap,
time cap and output-token cap. What a page does not state (hardware, warmup, input length, temperature, engine
version number) stays ``unknown: source_omits``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

from benchledger.errors import ImportFormatError
from benchledger.importers.common import (
    InputFile,
    fill_omitted,
    hoist_shared,
    known,
    omitted,
    quoted,
    quoted_result,
    record_id,
    slugify,
)
from benchledger.importers.context import ImportContext, draft_body
from benchledger.schema import (
    SPEC_METHODS,
    Acceptance,
    Arm,
    Benchmark,
    Result,
    Source,
    Speculative,
    Subject,
    SubjectOverride,
    Unknown,
    Workload,
    WorkloadOverride,
)

FORMAT = "autobench"
REQUIRED = ("title", "model", "engine", "concurrency", "status")
WRAPPER = re.compile(r"bench-(?:vllm|sglang|llamacpp)-serving\.sh\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)")
COMMENT_PATTERNS: tuple[tuple[str, str, str, str, str], ...] = (
    (r"TTFT median ([\d.]+) ms", "ttft", "median", "ms", "autobench-ttft"),
    (r"TPOT median ([\d.]+) ms", "tpot", "median", "ms", "autobench-tpot"),
    (r"(\d+)/\d+ prompts", "completed_requests", "value", "requests", "autobench-completed"),
    (r"(\d+) errors", "failed_requests", "value", "requests", "autobench-errors"),
    (r"req throughput ([\d.]+)/s", "request_throughput", "value", "req/s", "autobench-req-throughput"),
)
RATE = re.compile(r"~?([\d.]+)% avg draft acceptance(?: \(([^)]*)\))?")
LENGTH = re.compile(r"mean acceptance length ~?([\d.]+)")
PER_POSITION = re.compile(r"per-position ~?(\d*\.\d+(?: / \d*\.\d+)+)")
K_TEXT = re.compile(r"num_speculative_tokens=(\d+)")


@dataclass
class Page:
    """One parsed config page."""

    src: InputFile
    front: dict[str, Any]
    source_id: str

    def line(self, key: str) -> str:
        """The verbatim front-matter line ``key: …`` (the quote for that field)."""
        for raw in self.src.text.splitlines():
            if raw.startswith(f"{key}:"):
                return raw.strip()
        raise ImportFormatError(self.src.path, key, "not written on one line of the front matter")

    def number(self, key: str) -> float | None:
        value = self.front.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ImportFormatError(self.src.path, key, f"expected a number, got {value!r}")
        return float(value)


def _parse(src: InputFile, ctx: ImportContext) -> Page:
    text = src.text
    if not text.startswith("---\n"):
        raise ImportFormatError(src.path, "front matter", "expected the page to start with a '---' line")
    end = text.find("\n---", 4)
    if end == -1:
        raise ImportFormatError(src.path, "front matter", "no closing '---' line")
    try:
        front = yaml.safe_load(text[4:end])
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 2}" if mark is not None else "front matter"
        raise ImportFormatError(src.path, where, f"invalid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(front, dict):
        raise ImportFormatError(src.path, "front matter", "expected a YAML mapping")
    for key in REQUIRED:
        if front.get(key) in (None, ""):
            raise ImportFormatError(src.path, key, "missing (required front-matter key of a config page)")
    if front["status"] != "done":
        raise ImportFormatError(src.path, "status", f"page status is {front['status']!r}: it holds no results")
    if isinstance(front["concurrency"], bool) or not isinstance(front["concurrency"], int):
        raise ImportFormatError(src.path, "concurrency", f"expected an integer, got {front['concurrency']!r}")
    source_id = ctx.options.source or record_id(f"autobench-{src.path.stem}", src.sha256)
    return Page(src, front, source_id)


def build(files: list[InputFile], ctx: ImportContext) -> None:
    """Add one experiment per group of pages (see the module docstring), plus one source per page."""
    pages = [_parse(src, ctx) for src in files]
    groups: dict[tuple[str, ...], list[Page]] = {}
    for page in pages:
        f = page.front
        key = tuple(str(f.get(k) or "") for k in ("model", "source_repo", "engine", "quant", "context"))
        groups.setdefault(key, []).append(page)
    for group in groups.values():
        ctx.plan.add(_record(sorted(group, key=_order), ctx))
        if ctx.options.source is None:
            ctx.plan.add(*(_source(p, ctx) for p in group))


def _order(page: Page) -> tuple[bool, int]:
    return (bool(page.front.get("speculative")), int(page.front["concurrency"]))


def _source(page: Page, ctx: ImportContext) -> Source:
    return Source(kind="source", id=page.source_id, title=str(page.front["title"]), source_type="benchmark-page",
                  retrieved=ctx.options.retrieved, retrieved_via=f"benchledger import autobench {page.src.path.name}",
                  publisher="gauravmm/autobench", sha256=page.src.sha256, body=page.src.text)


def _record(pages: list[Page], ctx: ImportContext) -> Benchmark:
    first = pages[0].front
    arms = [_arm(p, ctx) for p in pages]
    names = [a.name for a in arms]
    for page, arm in zip(pages, arms, strict=True):
        if names.count(arm.name) > 1:
            raise ImportFormatError(page.src.path, "concurrency", f"two pages of one experiment are arm {arm.name!r}")
        if arm.speculative is not None and f"c{page.front['concurrency']}" in names:
            arm.baseline = f"c{page.front['concurrency']}"
    subject = Subject(model=ctx.resolver.resolve("model", str(first["model"])),
                      engine=ctx.resolver.resolve("engine", str(first["engine"])),
                      accelerator=ctx.resolver.resolve("accelerator", None))
    workload = Workload()
    per_arm_w = hoist_shared(arms, workload, "workload")
    per_arm_s = hoist_shared(arms, subject, "subject")
    fill_omitted(workload, skip=per_arm_w)
    fill_omitted(subject, skip=per_arm_s)
    stems = [p.src.path.stem.split("-") for p in pages]
    common = [t for i, t in enumerate(stems[0]) if all(len(s) > i and s[i] == t for s in stems)]
    prefix = ctx.options.id_prefix or ("autobench-" + "-".join(common or stems[0]))
    notes = ["Numbers are quoted from each page's front matter and run-command comments; `decode_toks` = "
             "Σ completion tokens / run duration → `output_throughput`, `prefill_toks` → `prefill_throughput`.",
             "TPOT (autobench-tpot) = (end − TTFT)/(completion_tokens − 1) per request; TTFT counts the first "
             "chunk with content or reasoning_content.",
             "Acceptance is the page author's summary of vLLM's periodic SpecDecoding log lines (free text).",
             "The page does not name the hardware; pass --accelerator ID to set it."]
    return Benchmark(
        kind="benchmark", id=record_id(prefix, *sorted(p.src.sha256 for p in pages)), measured_by="third-party",
        title=f"autobench: {first['model']} · {first['engine']} · {first.get('quant') or '?'} "
              f"({', '.join(names)})",
        subject=subject, workload=workload, arms=arms, sources=list(dict.fromkeys(p.source_id for p in pages)),
        body=draft_body(FORMAT, [p.src for p in pages], notes, ctx.resolver.take_unmatched_lines()))


def _arm(page: Page, ctx: ImportContext) -> Arm:
    f, sid = page.front, page.source_id
    workload = WorkloadOverride(concurrency=known(f["concurrency"], page.line("concurrency"), sid),
                                scenario="fixed-concurrency")
    subject = SubjectOverride(engine_version=omitted("the page pins engine_image (a digest), not a version number"))
    if f.get("context") is not None:
        workload.max_model_len = known(f["context"], page.line("context"), sid)
    if f.get("engine_image"):
        subject.image = known(str(f["engine_image"]), page.line("engine_image"), sid)
    quant = f.get("quant")
    if quant:
        fmt = ctx.resolver.existing_format(str(quant))
        subject.weights = (known(fmt, page.line("quant"), sid) if fmt else
                           Unknown(unknown="unchecked", note=f"page states `quant: {quant}`; no format record matches"))
    command = str(f.get("run_command") or "")
    wrapper = WRAPPER.search(command)
    if wrapper:
        line = _line_with(command, wrapper.group(0))
        workload.num_prompts = known(int(wrapper.group(4)), line, sid, note="wrapper arg num_prompts")
        workload.max_seconds = known(int(wrapper.group(5)), line, sid, note="wrapper arg max_seconds")
        workload.output_tokens = known(f"≤{wrapper.group(6)} (max_tokens cap)", line, sid,
                                       note="wrapper arg max_tokens; actual lengths are not stated")
    results = _results(page, command)
    spec_text = f.get("speculative")
    arm = Arm(name=(f"{slugify(str(spec_text)).split('-')[0]}-" if spec_text else "") + f"c{f['concurrency']}",
              workload=workload, subject=subject, results=results)
    if spec_text:
        arm.speculative, arm.acceptance = _speculative(page, str(spec_text), command)
    return arm


def _line_with(block: str, fragment: str) -> str:
    return next(raw.strip() for raw in block.splitlines() if fragment.split()[0] in raw)


def _results(page: Page, command: str) -> list[Result]:
    sid = page.source_id
    out: list[Result] = []
    for key, metric, definition in (("prefill_toks", "prefill_throughput", "autobench-prefill-toks"),
                                    ("decode_toks", "output_throughput", "autobench-decode-toks")):
        value = page.number(key)
        if value is not None:
            out.append(quoted_result(metric, "value", value, "tok/s", page.line(key), sid, definition))
    mem = page.number("mem_gb")
    if mem is not None:
        out.append(quoted_result("memory", "value", mem, "GB", page.line("mem_gb"), sid, "autobench-mem-gb",
                                 note=str(page.front.get("mem_source") or "")))
    seen: set[tuple[str, str]] = set()
    for raw in command.splitlines():
        line = raw.strip()
        if not line.startswith("#"):
            continue
        for pattern, metric, stat, unit, definition in COMMENT_PATTERNS:
            match = re.search(pattern, line)
            if match and (metric, stat) not in seen:
                seen.add((metric, stat))
                out.append(quoted_result(metric, stat, float(match.group(1)), unit, line, sid, definition))
    return out


def _speculative(page: Page, spec_text: str, command: str) -> tuple[Speculative, Acceptance | None]:
    sid = page.source_id
    config_match = re.search(r"--speculative-config\s+'(\{[^']*\})'", command)
    method, k, config = slugify(spec_text).split("-")[0], None, None
    if config_match:
        line = _line_with(command, "--speculative-config")
        config = known(config_match.group(1), line, sid)
        try:
            cfg = json.loads(config_match.group(1))
        except json.JSONDecodeError:
            cfg = {}
        if isinstance(cfg, dict):
            method = str(cfg.get("method") or method)
            if isinstance(cfg.get("num_speculative_tokens"), int):
                k = known(cfg["num_speculative_tokens"], line, sid)
    text = str(page.front.get("spec_acceptance") or "")
    if k is None and (m := K_TEXT.search(text)):
        k = known(int(m.group(1)), m.group(0), sid)
    spec = Speculative(method=method if method in SPEC_METHODS else "other", k=k if k is not None else omitted(),
                       config=config if config is not None else omitted())
    return spec, _acceptance(page, text) if text else None


def _acceptance(page: Page, text: str) -> Acceptance | None:
    sid, approx = page.source_id, "approximate (~) as stated"
    rate = RATE.search(text)
    length = LENGTH.search(text)
    per_pos = PER_POSITION.search(text)
    if not (rate or length or per_pos):
        return None
    return Acceptance(
        rate=quoted(float(rate.group(1)), "%", rate.group(0), sid, approx) if rate else None,
        mean_length=quoted(float(length.group(1)), "tokens", length.group(0), sid) if length else None,
        per_position=[quoted(float(v), "fraction", per_pos.group(0), sid, approx)
                      for v in per_pos.group(1).split(" / ")] if per_pos else [],
        definition="autobench-vllm-log", window=rate.group(2) if rate and rate.group(2) else None)


__all__ = ["FORMAT", "build"]
