"""``mlperf``: an MLPerf Inference results summary CSV (the results checker's output).

Only LLM benchmarks import (llama2-70b, llama3.1-*, mixtral-8x7b, gptj, deepseek-r1, gpt-oss-120b); the other
rows (resnet, bert, dlrm, …) are skipped and named in the body. The CSV text becomes a source record and every
number is quoted with its whole row. Rows of one system and one benchmark form one experiment whose arms are the
scenarios (Offline, Server, Interactive, SingleStream, MultiStream).

The metric comes from the MLPerf rules for the benchmark, not from the ``Units`` cell: LLM token benchmarks report
tokens/s (Offline ``result_tokens_per_second``, Server/Interactive ``result_completed_tokens_per_second`` under p99
TTFT/TPOT limits) and GPT-J reports samples/s (= requests/s). Some checker versions write ``Samples/s`` or
``Queries/s`` in ``Units`` for token benchmarks; the cell is kept verbatim in the arm note. Input/output lengths,
batch, warmup and sampling are fixed by the benchmark definition and are not in a summary row: ``source_omits``.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from benchledger.errors import ImportFormatError
from benchledger.importers.common import (
    InputFile,
    fill_omitted,
    hoist_shared,
    known,
    quoted_result,
    record_id,
)
from benchledger.importers.context import ImportContext, draft_body
from benchledger.schema import (
    Arm,
    Benchmark,
    Result,
    Source,
    Subject,
    SubjectOverride,
    Unknown,
    Workload,
    WorkloadOverride,
)
from benchledger.schema.benchmark import Scenario

FORMAT = "mlperf"
REQUIRED_COLUMNS = ("Organization", "SystemName", "Scenario", "Result", "Units")
TOKEN_BENCHMARKS = ("llama2-70b", "llama3.1-405b", "llama3.1-8b", "mixtral-8x7b", "deepseek-r1", "gpt-oss-120b")
SAMPLE_BENCHMARKS = ("gptj",)
SCENARIOS: dict[str, Scenario] = {"Offline": "offline", "Server": "request-rate", "Interactive": "request-rate",
                                  "SingleStream": "per-request", "MultiStream": "per-request"}


@dataclass
class Row:
    """One CSV row with its verbatim text and 1-based line number."""

    cells: dict[str, str]
    text: str
    line: int

    def get(self, key: str) -> str:
        return (self.cells.get(key) or "").strip()


def _benchmark_of(row: Row) -> str:
    return row.get("MlperfModel") or row.get("Model")


def _family(benchmark: str) -> str | None:
    for name in (*TOKEN_BENCHMARKS, *SAMPLE_BENCHMARKS):
        if benchmark == name or benchmark.startswith(name + "-"):
            return name
    return None


def _rows(src: InputFile) -> list[Row]:
    lines = src.text.splitlines()
    reader = csv.DictReader(io.StringIO(src.text))
    missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
    if not (reader.fieldnames and ("Model" in reader.fieldnames or "MlperfModel" in reader.fieldnames)):
        missing.append("MlperfModel")
    if missing:
        raise ImportFormatError(src.path, missing[0], "missing column; not an MLPerf Inference summary CSV")
    rows: list[Row] = []
    start = reader.line_num
    for cells in reader:
        text = "\n".join(lines[start:reader.line_num])
        rows.append(Row({k: v for k, v in cells.items() if isinstance(k, str) and isinstance(v, str)}, text,
                        reader.line_num))
        start = reader.line_num
    return rows


def build(files: list[InputFile], ctx: ImportContext) -> None:
    """Add one experiment per (system, LLM benchmark) of each CSV, plus the CSV as a source."""
    for src in files:
        rows = _rows(src)
        llm = [r for r in rows if _family(_benchmark_of(r))]
        if not llm:
            raise ImportFormatError(src.path, "MlperfModel", "no LLM benchmark rows (expected one of "
                                    f"{', '.join(TOKEN_BENCHMARKS + SAMPLE_BENCHMARKS)})")
        skipped = sorted({_benchmark_of(r) for r in rows if r not in llm})
        source_id = ctx.options.source or record_id(f"mlperf-summary-{src.path.stem}", src.sha256)
        groups: dict[tuple[str, str, str], list[Row]] = {}
        for row in llm:
            key = (row.get("Organization"), row.get("SystemName") + "|" + row.get("Platform"), _benchmark_of(row))
            groups.setdefault(key, []).append(row)
        for (org, system, bench), group in groups.items():
            ctx.plan.add(_record(src, org, system, bench, group, source_id, skipped, ctx))
        if ctx.options.source is None:
            ctx.plan.add(Source(kind="source", id=source_id, title=f"MLPerf Inference summary CSV {src.path.name}",
                                source_type="dataset", retrieved=ctx.options.retrieved,
                                retrieved_via=f"benchledger import mlperf {src.path.name}", sha256=src.sha256,
                                body=src.text))


def _record(src: InputFile, org: str, system: str, bench: str, rows: list[Row], source_id: str, skipped: list[str],
            ctx: ImportContext) -> Benchmark:
    first = rows[0]
    arms = [_arm(src, row, bench, source_id) for row in rows]
    names = [a.name for a in arms]
    for row, arm in zip(rows, arms, strict=True):
        if names.count(arm.name) > 1:
            raise ImportFormatError(src.path, f"line {row.line}: Scenario", f"scenario {arm.name!r} appears twice "
                                    f"for {org} {system} {bench}")
    subject = Subject(model=ctx.resolver.resolve("model", _family(bench)),
                      engine=ctx.resolver.resolve("engine", None),
                      accelerator=ctx.resolver.resolve("accelerator", first.get("accelerator_model_name") or None))
    if first.get("host_processor_model_name"):
        subject.host = known(first.get("host_processor_model_name"), first.text, source_id)
    workload = Workload()
    per_w = hoist_shared(arms, workload, "workload")
    per_s = hoist_shared(arms, subject, "subject")
    rules = "fixed by the MLPerf benchmark definition; not in the summary row"
    fill_omitted(workload, rules, skip=per_w)
    fill_omitted(subject, skip=per_s)
    version = first.get("version") or "v"
    notes = [f"Rows of other benchmarks in the file were not imported: {', '.join(skipped)}." if skipped else "",
             f"Framework as stated: {first.get('framework') or 'not stated'} (engine not matched to a ledger id).",
             "Server/Interactive results hold only under the benchmark's p99 TTFT/TPOT limits."]
    return Benchmark(
        kind="benchmark", id=record_id(ctx.options.id_prefix or f"mlperf-{version}-{org}-{bench}", src.sha256,
                                       system, bench),
        title=f"MLPerf Inference {version}: {org} {first.get('SystemName')}, {bench} ({', '.join(names)})",
        measured_by="vendor", subject=subject, workload=workload, arms=arms, sources=[source_id],
        body=draft_body(FORMAT, [src], [n for n in notes if n], ctx.resolver.take_unmatched_lines()))


def _arm(src: InputFile, row: Row, bench: str, source_id: str) -> Arm:
    scenario_text = row.get("Scenario")
    if scenario_text not in SCENARIOS:
        raise ImportFormatError(src.path, f"line {row.line}: Scenario", f"unknown scenario {scenario_text!r}")
    try:
        value = float(row.get("Result"))
    except ValueError:
        raise ImportFormatError(src.path, f"line {row.line}: Result", f"expected a number, got "
                                f"{row.get('Result')!r}") from None
    q, family = row.text, _family(bench)
    results: list[Result] = []
    if scenario_text in ("SingleStream", "MultiStream"):
        stat = "p90" if scenario_text == "SingleStream" else "p99"
        results.append(quoted_result("e2e_latency", stat, value, "ms", q, source_id, f"mlperf-{scenario_text.lower()}"))
    elif family in SAMPLE_BENCHMARKS:
        results.append(quoted_result("request_throughput", "value", value, "req/s", q, source_id,
                                     f"mlperf-{scenario_text.lower()}-samples-per-second"))
    else:
        name = "result_tokens_per_second" if scenario_text == "Offline" else "result_completed_tokens_per_second"
        results.append(quoted_result("output_throughput", "value", value, "tok/s", q, source_id, f"mlperf-{name}"))
    subject = SubjectOverride()
    if row.get("framework"):
        subject.engine_version = known(row.get("framework"), q, source_id, note="MLPerf `framework` column")
    per_node, nodes = row.get("accelerators_per_node"), row.get("number_of_nodes") or "1"
    if per_node.isdigit() and nodes.isdigit():
        subject.accelerator_count = known(int(per_node) * int(nodes), q, source_id,
                                          note="accelerators_per_node × number_of_nodes")
    if row.get("weight_data_types"):
        subject.weights = Unknown(unknown="unchecked", note=f"weight_data_types `{row.get('weight_data_types')}` "
                                  "is not mapped to a format id")
    note = (f"Division {row.get('Division')}, availability {row.get('Availability')}, accuracy "
            f"{row.get('Accuracy')}, Units cell `{row.get('Units')}`, location {row.get('Location')}")
    return Arm(name=scenario_text.lower(), workload=WorkloadOverride(scenario=SCENARIOS[scenario_text]),
               subject=subject, results=results, note=note)


__all__ = ["FORMAT", "build"]
