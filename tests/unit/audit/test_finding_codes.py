"""Every audit finding code: a tiny ledger made wrong in exactly one way yields exactly that code, and no other
error (issue 11). A code found in ``src/benchledger/audit`` without a row here fails ``test_every_code_has_a_case``.
"""

from __future__ import annotations

import copy
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchledger.audit import run_audit
from benchledger.ledger import Ledger, write_record
from benchledger.ledger.io import MAX_RECORD_BYTES
from benchledger.schema import Unknown
from benchledger.schema.walk import walk_evidence

from ledger_builder import GB10_BW, HISTORY, benchmark, reference_records, source, write_all
from ledger_builder import physics_arm as arm
from ledger_builder import physics_benchmark as physics_benchmark
from ledger_builder import write_physics_reference as write_physics_reference

AUDIT_SRC = Path(__file__).resolve().parents[3] / "src" / "benchledger" / "audit"
BENCH = Path("benchmarks") / "test-bench.md"
Build = Callable[[Path], None]


def _records(mutate: Callable[[dict[str, Any]], None] | None = None, *extra: dict[str, Any],
             base: Callable[[], dict[str, Any]] = benchmark) -> Build:
    """The tiny ledger with its benchmark mutated (and extra records added)."""
    def build(root: Path) -> None:
        data = copy.deepcopy(base())
        if mutate is not None:
            mutate(data)
        write_all(root, [source(), *reference_records(), data, *extra])
    return build


def _file(change: Callable[[Path], None]) -> Build:
    """The tiny ledger, then one change to its files."""
    def build(root: Path) -> None:
        _records()(root)
        change(root)
    return build


def _rewrite(rel: Path, old: str, new: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        path = root / rel
        text = path.read_text(encoding="utf-8")
        assert old in text
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return change


def _arm(index: int, **changes: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        data["arms"][index].update(changes)
    return mutate


def _acceptance(**changes: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        data["arms"][1]["acceptance"].update(changes)
    return mutate


def _derived_length(value: float) -> dict[str, Any]:
    return {"value": value, "unit": "tokens", "provenance": "derived", "formula": "test"}


def _measured(root_run: str, sha: str) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        data["arms"][0]["results"].append({"value": 4, "unit": "requests", "provenance": "measured",
                                           "run": root_run, "sha256": sha, "metric": "completed_requests"})
    return mutate


def _run_file(root: Path) -> None:
    (root / "runs" / "r1").mkdir(parents=True)
    (root / "runs" / "r1" / "requests.jsonl").write_text("{}\n", encoding="utf-8")


def _contests(status_a: str, a_contests: list[str], b_contests: list[str]) -> Build:
    def other() -> dict[str, Any]:
        data = benchmark("other-bench")
        data["workload"]["warmup"] = {"unknown": "source_omits"}  # a different measurement, not a duplicate
        data["contests"] = b_contests
        return data

    def mutate(data: dict[str, Any]) -> None:
        data.update(status=status_a, contests=a_contests)
    return _records(mutate, other())


def _physics(root: Path) -> None:
    """The physics reference ledger (GB10, a 27B hybrid model) and a result twice its ceiling; the source
    stores every quote and the conditions are stated, so that nothing but the physics is wrong."""
    write_physics_reference(root)
    record = physics_benchmark("b-fast", [arm("c1", 2 * GB10_BW, 1)])
    record.subject.engine_version = Unknown(unknown="unchecked", note="test")
    record.workload.warmup = Unknown(unknown="unchecked", note="test")
    write_record(root, record)
    write_all(root, [{"id": "vllm", "kind": "engine", "title": "vLLM", "name": "vLLM", "history": HISTORY}])
    quotes = sorted({item.quote for r in Ledger.load(root) for _, item in walk_evidence(r) if item.quote})
    write_all(root, [source("src-test", body="\n".join(quotes) + "\n")])


def _weights(engine_flags: str | None) -> Build:
    """The tiny ledger on 2 × a 24 GB part running a 70 B model at 1 byte/param: 70 GB of weights cannot be held by
    48 GB (51.5 GB read as GiB), unless the record states an offload (``engine_flags``)."""
    def derived(value: float, unit: str) -> dict[str, Any]:
        return {"value": value, "unit": unit, "provenance": "derived", "formula": "test input"}

    unk = {"unknown": "unchecked"}
    card = {"id": "small-card", "kind": "accelerator", "title": "Small Card", "name": "Small Card", "vendor": "test",
            "memory_gb": derived(24, "GB"), "memory_bandwidth_gbs": unk, "history": HISTORY}
    model = {"id": "big-model", "kind": "model", "title": "Big Model", "name": "Big Model", "history": HISTORY,
             "hidden_size": unk, "layers_full_attention": unk, "num_heads": unk, "num_kv_heads": unk,
             "head_dim": unk, "vocab_size": unk, "params_total": derived(70, "B")}
    fmt = {"id": "int8-test", "kind": "format", "title": "INT8", "name": "INT8", "applies_to": ["weights"],
           "bits_per_element": derived(8, "bits"), "bytes_per_param": derived(1, "bytes"), "history": HISTORY}

    def mutate(data: dict[str, Any]) -> None:
        data["subject"].update(model="big-model", accelerator="small-card", weights="int8-test")
        if engine_flags is not None:
            data["subject"]["engine_flags"] = engine_flags
    return _records(mutate, card, model, fmt)


def _oversize(root: Path) -> None:
    with (root / BENCH).open("r+b") as handle:
        handle.truncate(MAX_RECORD_BYTES + 1)


def _waivers(text: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        (root / "waivers.yaml").write_text(text, encoding="utf-8")
    return change


MTP_ROW = "| MTP4, high acceptance (94.9% / 4.79) | 2820.8 | 24.06 | **+25.8%** |"
CASES: dict[str, Build] = {
    "schema.invalid": _file(_rewrite(BENCH, "metric: output_throughput", "metric: output_thruput")),
    "files.encoding": _file(lambda r: (r / BENCH).write_bytes(b"\xef\xbb\xbf" + (r / BENCH).read_bytes())),
    "files.too-large": _file(_oversize),
    "files.in-subfolder": _file(lambda r: ((r / "benchmarks" / "sub").mkdir(),
                                           shutil.copy(r / BENCH, r / "benchmarks" / "sub" / "x.md"))),
    "identity.duplicate-id": _file(lambda r: shutil.copy(r / BENCH, r / "benchmarks" / "zz-copy.md")),
    "identity.id-not-filename": _file(lambda r: (r / BENCH).rename(r / "benchmarks" / "renamed.md")),
    "identity.wrong-folder": _file(lambda r: (r / "models" / "test-model.md").rename(r / "engines" / "test-model.md")),
    "references.dangling": _records(lambda d: d["subject"].update(model="no-such-model")),
    "references.source-not-listed": _records(
        lambda d: d["arms"][0]["results"][0].update(source="second-source"), source("second-source")),
    "provenance.source-hash-mismatch": _file(_rewrite(Path("sources") / "test-source.md", "Setup:", "Set-up:")),
    "provenance.empty-excerpt": _records(None, source("empty-source", body="")),
    "provenance.quote-not-in-source": _records(
        lambda d: d["arms"][0]["results"][1].update(quote="| baseline (no MTP) | 1380.8 | 19.13 | +3% |")),
    "provenance.quote-without-source": _records(lambda d: d.update(sources=[])),
    "provenance.number-not-in-quote": _records(lambda d: d["arms"][1]["results"][0].update(value=2820.9)),
    "provenance.value-not-in-quote": _records(lambda d: d["subject"]["engine_version"].update(value="1.2.4")),
    "provenance.quoted-change-mismatch": _records(lambda d: d["arms"][0]["results"][1].update(
        value=1380.8, quote="| baseline (no MTP) | 1380.8 | 19.13 | - |")),
    "provenance.quoted-change-unverifiable": _records(lambda d: d["arms"][1]["quoted_changes"][0].update(
        metric="tpot")),
    "provenance.run-missing": _records(_measured("runs/nowhere", "0" * 64)),
    "provenance.run-hash-mismatch": lambda r: (_records(_measured("runs/r1", "0" * 64))(r), _run_file(r)),
    "conditions.missing-without-reason": _records(lambda d: d["workload"].pop("warmup")),
    "conditions.extra-missing": _records(lambda d: d["subject"].pop("weights")),
    "conditions.spec-acceptance-missing": _records(lambda d: d["arms"][1].pop("acceptance")),
    "arms.spec-without-baseline": _records(lambda d: d["arms"][1].pop("baseline")),
    "arms.baseline-not-found": _records(_arm(1, baseline="nope")),
    "arms.baseline-differs": _records(_arm(1, workload={"input_tokens": {"value": 1000, "note": "test"}})),
    "arms.unknown-spec-method": _records(lambda d: d["arms"][1]["speculative"].update(method="wizardry")),
    "arms.speedup-exceeds-acceptance": _records(_acceptance(mean_length=_derived_length(1.1))),
    "arms.acceptance-above-k": _records(_acceptance(mean_length=_derived_length(5.5))),
    "duplicates.same-measurement": _records(None, benchmark("zz-bench")),
    "contested.unlinked": _records(lambda d: d.update(status="contested")),
    "contested.not-reciprocal": _contests("contested", ["other-bench"], []),
    "contested.status": _contests("draft", ["other-bench"], ["test-bench"]),
    "history.missing": _records(lambda d: d.update(history=[])),
    "history.unordered": _records(lambda d: d.update(history=[
        {"date": "2026-11-29", "change": "b", "why": "test", "numbers_changed": False},
        {"date": "2026-11-28", "change": "a", "why": "test", "numbers_changed": True}])),
    "measured.incomplete": _records(lambda d: d.update(complete=False)),
    "secrets.suspected": _records(lambda d: d.update(body="key: sk-" + "a1" * 12 + "\n")),
    "physics.above-ceiling": _physics,
    "physics.ceiling-unknown": _records(),
    "physics.weights-do-not-fit": _weights(None),
    "physics.weights-offloaded": _weights("--cpu-offload-gb 40"),
    "waivers.invalid": _file(_waivers("{not: a list}\n")),
    "waivers.unused": _file(_waivers("- code: history.missing\n  record: test-bench\n  reason: no such finding here\n"
                                     "  date: 2026-11-30\n")),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_exactly_this_code(code: str, tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    root.mkdir()
    CASES[code](root)
    report = run_audit(Ledger.load(root))
    found = {f.code for f in report.findings if not f.waived}
    errors = {f.code for f in report.findings if f.severity == "error" and not f.waived}
    assert code in found, report.to_json()
    assert errors <= {code}, report.to_json()
    severity = {f.severity for f in report.findings if f.code == code}
    if "error" not in severity:  # a warning or info case: nothing else above info may fire either
        assert {f.code for f in report.findings if f.severity == "warning"} <= {code}, report.to_json()


def test_every_code_has_a_case() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in AUDIT_SRC.rglob("*.py"))
    text += (AUDIT_SRC.parent / "ledger" / "io.py").read_text(encoding="utf-8")
    text += (AUDIT_SRC.parent / "ledger" / "store.py").read_text(encoding="utf-8")
    codes = set(re.findall(r'Finding\(\s*"([a-z]+\.[a-z-]+)"', text))
    codes |= set(re.findall(r'code="([a-z]+\.[a-z-]+)"', text))
    codes.add("schema.invalid")  # RecordError's default code
    assert codes == set(CASES)


@pytest.mark.parametrize(("ci95", "severity"), [([1.10, 1.40], "warning"), ([1.20, 1.35], "error"), (None, "error")])
def test_a_speedup_above_acceptance_within_the_runs_own_noise_is_a_warning(
        ci95: list[float] | None, severity: str, tmp_path: Path) -> None:
    """24.06 / 19.13 = 1.26x against AL 1.1 (bound 1.155): an error, unless the arm's paired rounds measured a
    95 % CI whose low end reaches the bound (noise between rounds, as on a loaded machine)."""
    def mutate(data: dict[str, Any]) -> None:
        _acceptance(mean_length=_derived_length(1.1))(data)
        data["arms"][1]["paired_speedups"] = [{"metric": "output_throughput", "estimate": 1.26, "ci95": ci95,
                                               "paired_rounds": 5, "method": "test"}]
    root = tmp_path / "ledger"
    root.mkdir()
    _records(mutate)(root)
    report = run_audit(Ledger.load(root))
    found = [f for f in report.findings if f.code == "arms.speedup-exceeds-acceptance"]
    assert [f.severity for f in found] == [severity], report.to_json()
    assert ("within the run's own noise" in found[0].message) == (severity == "warning")
