"""Eval-rate tables of ``llama_bench_tables``: ``| System | CPU/GPU | Eval Rate | Power (Peak) |`` under a heading
naming the model (``### Llama 3.2:3b``), as in geerlingguy/ai-benchmarks' README. One experiment per row, one arm.

Mapping (foreign field → ledger field, or why not):

| table | ledger |
|---|---|
| heading above the table | ``subject.model`` (``llama_bench_catalog.MODEL_HEADINGS``) |
| ``System`` (its link text; a parenthesised GPU for GPU rows) | ``subject.accelerator`` (``llama_bench_catalog.DEVICES``), ``subject.host`` the system as written, ``accelerator_count`` 1 |
| ``CPU/GPU`` | which part ran the model: a CPU row's accelerator is the system's processor; ``GPU/CPU`` (split) rows note it |
| ``<sup>1</sup>`` on a row and the footnote it points to | ``subject.engine`` llama.cpp and ``engine_flags`` Vulkan, quoting the footnote; unmarked rows: engine not stated |
| ``Eval Rate`` ``92.49 Tokens/s`` | ``per_stream_throughput`` value tok/s (the token generation rate of one request) |
| ``Power (Peak)`` | not imported: a peak system power, not energy per token |
| weight format (the tag's quantization), prompt and output lengths, concurrency, versions | ``unknown: source_omits`` |
| a cluster row (``Cluster``) | not imported: several nodes, not one system |
"""

from __future__ import annotations

import re

from benchledger.importers import llama_bench_catalog as catalog
from benchledger.importers.common import fill_omitted, known, omitted, quoted_result, record_id, slugify
from benchledger.importers.context import ImportContext
from benchledger.importers.git_snapshot import Snapshot, StoredFile
from benchledger.importers.llama_bench_markdown import FORMAT, Table, ref
from benchledger.importers.snapshot_source import created, owner_repo
from benchledger.schema import Arm, Benchmark, Parallelism, Subject, Workload

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MARK = re.compile(r"<sup>\s*1\s*</sup>")
_RATE = re.compile(r"^(?P<value>\d+(?:\.\d+)?)\s*tokens/s$", re.IGNORECASE)
_PAREN = re.compile(r"\(([^()]*)\)")


def is_eval(table: Table) -> bool:
    """The table has a System column and an Eval Rate column."""
    names = [c.lower() for c in table.columns]
    return bool(names) and names[0] == "system" and "eval rate" in names


def footnote(text: str) -> str | None:
    """The line explaining the ``<sup>1</sup>`` mark (it names the engine), or None."""
    return next((line.strip() for line in text.split("\n") if line.strip().startswith("<sup>1</sup>")), None)


def device(system: str) -> str | None:
    """The accelerator id of a system cell: a parenthesised part first (the GPU of a GPU row, the processor of some
    CPU rows), then the whole system, then the system without its parenthesised parts."""
    names = [*_PAREN.findall(system), system, _PAREN.sub("", system)]
    return next((catalog.DEVICES[slugify(n)] for n in names if slugify(n) in catalog.DEVICES), None)


def eval_records(snap: Snapshot, file: StoredFile, table: Table, number: int, source_id: str,
                 existing: dict[tuple[object, ...], str], skipped: list[str], ctx: ImportContext) -> list[Benchmark]:
    """One experiment per row of an eval-rate table (see the module docstring)."""
    where = f"`{file.path}` table {number}"
    heading = table.headings[-1] if table.headings else ""
    model_id = catalog.MODEL_HEADINGS.get(slugify(heading.lstrip("#")))
    names = [c.lower() for c in table.columns]
    col_rate, col_kind = names.index("eval rate"), names.index("cpu/gpu") if "cpu/gpu" in names else None
    note_line = footnote(file.text)
    out = []
    for lineno, line, cells in table.rows:
        here = f"{where} line {lineno}"
        if len(cells) != len(table.columns):
            skipped.append(f"{here}: {len(cells)} cells, the header has {len(table.columns)}")
            continue
        marked = bool(_MARK.search(cells[0]))
        system = " ".join(_LINK.sub(r"\1", _MARK.sub("", cells[0])).split())
        kind = cells[col_kind] if col_kind is not None else ""
        rate = _RATE.match(cells[col_rate].strip())
        if "cluster" in system.lower():
            skipped.append(f"{here}: {system}: a cluster of several nodes, not one system")
            continue
        if rate is None:
            skipped.append(f"{here}: Eval Rate {cells[col_rate]!r} is not '<number> Tokens/s'")
            continue
        value = float(rate["value"])
        subject = Subject(
            model=ref(ctx, "model", model_id, f"heading {heading.lstrip('#').strip()!r}"),
            engine=ref(ctx, "engine", "llama-cpp" if marked and note_line else None,
                       "llama.cpp (footnote 1)" if marked else "not stated for this row"),
            accelerator=ref(ctx, "accelerator", device(system), f"system {system!r} ({kind or 'no CPU/GPU'})"),
            accelerator_count=known(1, note="one system per row"),
            parallelism=Parallelism(tp=known(1, note="one device") if kind.upper() in ("GPU", "CPU") else omitted(
                f"CPU/GPU {kind!r}: how the model was split is not stated")),
            host=known(system, line, source_id, f"CPU/GPU column: {kind}"),
            engine_flags=known("Vulkan", note_line, source_id) if marked and note_line else omitted(
                "no backend stated for this row"),
            weights=omitted("the model tag's quantization is not stated"),
            engine_version=omitted("not stated in the table"))
        twin = existing.get((subject.model, subject.accelerator, 1, "per_stream_throughput", value))
        if twin is not None:
            skipped.append(f"{here}: {value} tok/s is already in record `{twin}` (the same measurement)")
            continue
        arm = Arm(name="eval-rate", results=[quoted_result(
            "per_stream_throughput", "value", value, "tok/s", line, source_id, "eval-rate",
            "column 'Eval Rate': token generation rate")])
        workload = Workload(scenario="per-request")
        fill_omitted(workload, "not stated in the table")
        fill_omitted(subject, "not stated in the table")
        lines = ctx.resolver.take_unmatched_lines()
        body = (f"Imported by `benchledger import llama-bench-tables` from {snap.repo_url} at commit {snap.commit}: "
                f"{where} under `{heading.strip()}`, the row of {system} ({kind}); its number is quoted with the row "
                f"from the file stored whole in source `{source_id}`. The Power (Peak) column is not imported.\n"
                + ("\n## Stated by the input, not yet matched to ledger records\n\n" + "\n".join(lines) + "\n"
                   if lines else ""))
        out.append(Benchmark(
            kind="benchmark",
            id=record_id(slugify(f"{owner_repo(snap).split('/')[0]}-{heading.lstrip('#')}-{system}")[:64].strip("-"),
                         snap.repo_url, file.path, heading, line),
            title=f"Eval rate, {heading.lstrip('#').strip()} on {system} ({kind}) ({owner_repo(snap)}, "
                  f"{snap.committed.isoformat()})",
            measured_by="third-party", subject=subject, workload=workload, arms=[arm], sources=[source_id],
            history=[created(ctx, FORMAT, "bulk import of a community eval-rate table")], body=body))
    return out


__all__ = ["device", "eval_records", "footnote", "is_eval"]
