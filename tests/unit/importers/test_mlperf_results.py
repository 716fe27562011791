"""mlperf-results importer: a real git snapshot (built here from files copied out of inference_results_v4.1/v5.1)
→ one source per system storing its files whole, one experiment per system × LLM benchmark, scenario arms."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.unit.importers.support import audit_errors, options, snapshot

from benchledger.errors import ImportFormatError
from benchledger.importers import import_files
from benchledger.importers.git_snapshot import StoredFile
from benchledger.importers.mlperf_system import weights_condition
from benchledger.importers.stored_files import stored_files
from benchledger.ledger.io import write_record
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark, Engine, Format, Known, ModelArch, Source, Unknown
from benchledger.schema.reference import Accelerator

TREE = "mlperf_results"
URL = "https://github.com/mlcommons/inference_results_v9.9"
AMD = "closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99"


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_AUTHOR_DATE": "2025-09-09T12:00:00Z",
           "GIT_COMMITTER_DATE": "2025-09-09T12:00:00Z"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env,
                          timeout=60).stdout


@pytest.fixture
def repo(fixtures: Path, tmp_path: Path) -> Path:
    root = tmp_path / "snapshot"
    shutil.copytree(fixtures / TREE, root)
    _git(root, "init", "-q")
    _git(root, "config", "core.autocrlf", "false")
    _git(root, "remote", "add", "origin", URL + ".git")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "results")
    return root


def _references(root: Path) -> None:
    u = Unknown(unknown="unchecked", note="test reference")
    for mid in ("llama-2-70b", "gpt-j-6b"):
        write_record(root, ModelArch(kind="model", id=mid, title=mid, name=mid, hidden_size=u,
                                     layers_full_attention=u, num_heads=u, num_kv_heads=u, head_dim=u, vocab_size=u,
                                     params_total=u))
    for eid in ("vllm", "pytorch"):
        write_record(root, Engine(kind="engine", id=eid, title=eid, name=eid))
    write_record(root, Accelerator(kind="accelerator", id="amd-mi300x", title="MI300X", name="MI300X",
                                   vendor="AMD", memory_gb=u, memory_bandwidth_gbs=u))
    write_record(root, Format(kind="format", id="fp8", title="fp8", name="fp8", applies_to=["weights"],
                              bits_per_element=u, bytes_per_param=u))


def _benchmarks(root: Path) -> dict[str, Benchmark]:
    out = {}
    for r in Ledger.load(root).of_kind("benchmark"):
        assert isinstance(r, Benchmark)
        match = re.search(r": (\S+) .*, ([^,]+) \([^)]*\)$", r.title)
        assert match, r.title
        out[f"{match[2]}@{match[1]}"] = r
    return out


def test_systems_benchmarks_and_scenarios(repo: Path, ledger_dir: Path) -> None:
    _references(ledger_dir)
    import_files("mlperf-results", [repo], ledger_dir, options())
    records = _benchmarks(ledger_dir)
    assert sorted(records) == ["gptj-99@Cisco", "llama2-70b-99@AMD"]  # resnet50 is not an LLM
    llama = records["llama2-70b-99@AMD"]
    assert [a.name for a in llama.arms] == ["offline", "server"]  # Interactive is INVALID: not imported
    server = next(a for a in llama.arms if a.name == "server")
    got = {(r.metric, r.stat): (r.value, r.unit) for r in server.results}
    assert got[("output_throughput", "value")] == (24593.77, "tok/s")
    assert got[("ttft", "p99")] == (1914647645, "ns") and got[("tpot", "p99")] == (193380124, "ns")
    assert server.workload is not None and isinstance(server.workload.tpot_limit_ns, Known)
    assert server.workload.tpot_limit_ns.value == 200000000 and server.workload.scenario == "request-rate"
    assert llama.subject.engine == "vllm" and llama.subject.accelerator == "amd-mi300x"
    assert getattr(llama.subject.accelerator_count, "value", None) == 8
    assert getattr(llama.subject.weights, "value", None) == "fp8"
    gptj = records["gptj-99@Cisco"]
    assert gptj.subject.accelerator == "unknown-accelerator"  # a CPU-only system: accelerator 'N/A'
    assert isinstance(gptj.subject.accelerator_count, Unknown)
    assert next((r.metric, r.unit) for r in gptj.arms[0].results) == ("request_throughput", "req/s")
    assert audit_errors(ledger_dir) == []


def test_sources_store_each_file_whole(repo: Path, ledger_dir: Path) -> None:
    _references(ledger_dir)
    import_files("mlperf-results", [repo], ledger_dir, options())
    sources = [r for r in Ledger.load(ledger_dir).of_kind("source") if isinstance(r, Source)]
    assert len(sources) == 2
    blobs = {}
    for source in sources:
        for path, block in stored_files(source.body).items():
            blobs[path] = block
            data = (repo / path).read_bytes()
            assert block.intact and block.sha256 == hashlib.sha256(data).hexdigest()
            assert block.text.encode() == data  # CRLF and a missing final newline survive (Cisco system JSON)
    assert f"{AMD}/Interactive/performance/run_1/mlperf_log_summary.txt" not in blobs
    amd = next(s for s in sources if "AMD" in s.title)
    assert "result is not VALID" in amd.body and str(amd.url).startswith(URL + "/tree/")


def test_reimport_is_idempotent(repo: Path, ledger_dir: Path) -> None:
    _references(ledger_dir)
    import_files("mlperf-results", [repo], ledger_dir, options())
    before = snapshot(ledger_dir)
    outcomes = import_files("mlperf-results", [repo], ledger_dir, options())
    assert {o.status for o in outcomes} == {"unchanged"} and snapshot(ledger_dir) == before


def test_not_a_snapshot_writes_nothing(tmp_path: Path, ledger_dir: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    before = snapshot(ledger_dir)
    with pytest.raises(ImportFormatError, match="not a readable git snapshot"):
        import_files("mlperf-results", [plain], ledger_dir, options())
    assert snapshot(ledger_dir) == before


def test_valid_summary_without_throughput_is_an_error(repo: Path, ledger_dir: Path) -> None:
    path = repo / f"{AMD}/Offline/performance/run_1/mlperf_log_summary.txt"
    path.write_text("\n".join(ln for ln in path.read_text().splitlines() if "per second" not in ln) + "\n")
    _git(repo, "commit", "-q", "-am", "drop the throughput lines")
    with pytest.raises(ImportFormatError, match="without its throughput line"):
        import_files("mlperf-results", [repo], ledger_dir, options())
    assert not (ledger_dir / "benchmarks").exists()


def test_a_pinned_commit_of_a_copy_is_read_and_named(repo: Path, ledger_dir: Path) -> None:
    """``<dir>@<commit>`` reads that commit, not HEAD; a copy kept by another owner is named as a copy, with the
    pinned commit's author and subject (the fork of v6.0 is read at MLCommons' last commit, not the fork's own)."""
    _references(ledger_dir)
    _git(repo, "remote", "set-url", "origin", "https://github.com/someone/inference_results_v9.9.git")
    pinned = _git(repo, "rev-parse", "HEAD").strip()
    path = repo / f"{AMD}/Offline/performance/run_1/mlperf_log_summary.txt"
    path.write_text(path.read_text().replace("Tokens per second", "Tokens per second (edited)"))
    _git(repo, "commit", "-q", "-am", "a later commit of the copy's owner")
    import_files("mlperf-results", [f"{repo}@{pinned}"], ledger_dir, options())
    sources = [r for r in Ledger.load(ledger_dir).of_kind("source") if isinstance(r, Source)]
    amd = next(s for s in sources if "AMD" in s.title)
    assert f"commit {pinned}" in amd.body and "(edited)" not in amd.body
    assert "not MLCommons' own repository" in amd.body and "written by t: results" in amd.body
    assert str(amd.url).startswith(f"https://github.com/someone/inference_results_v9.9/tree/{pinned}/")
    assert audit_errors(ledger_dir) == []


def test_mlcommons_own_repository_is_not_called_a_copy(repo: Path, ledger_dir: Path) -> None:
    _references(ledger_dir)
    import_files("mlperf-results", [repo], ledger_dir, options())
    assert not any("not MLCommons' own" in r.body for r in Ledger.load(ledger_dir).of_kind("source"))


def test_v6_layout_measurements_in_the_results_folder(fixtures: Path, tmp_path: Path, ledger_dir: Path) -> None:
    """v6.0 keeps ``measurements.json`` beside the scenario's results (no ``measurements/`` tree): the weights come
    from it, and LoadGen's ``1.04298e+06`` tokens/s is imported and audits as written; qwen3-vl imports as an LLM
    benchmark (a real v6.0 excerpt)."""
    root = tmp_path / "v6"
    shutil.copytree(fixtures / "mlperf_results_v6", root)
    _git(root, "init", "-q")
    _git(root, "config", "core.autocrlf", "false")
    _git(root, "remote", "add", "origin", "https://github.com/mlcommons/inference_results_v6.0.git")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "results")
    u = Unknown(unknown="unchecked", note="test reference")
    write_record(ledger_dir, ModelArch(kind="model", id="gpt-oss-120b", title="m", name="m", hidden_size=u,
                                       layers_full_attention=u, num_heads=u, num_kv_heads=u, head_dim=u,
                                       vocab_size=u, params_total=u))
    write_record(ledger_dir, Engine(kind="engine", id="tensorrt-llm", title="t", name="t"))
    write_record(ledger_dir, Accelerator(kind="accelerator", id="nvidia-gb300", title="g", name="g", vendor="NVIDIA",
                                         memory_gb=u, memory_bandwidth_gbs=u))
    for fid in ("fp4", "fp32"):
        write_record(ledger_dir, Format(kind="format", id=fid, title=fid, name=fid, applies_to=["weights"],
                                        bits_per_element=u, bytes_per_param=u))
    import_files("mlperf-results", [root], ledger_dir, options())
    records = _benchmarks(ledger_dir)
    assert sorted(records) == ["gpt-oss-120b@NVIDIA", "qwen3-vl-235b-a22b@NVIDIA"]
    record = records["gpt-oss-120b@NVIDIA"]
    offline = record.arms[0]
    weights = offline.subject.weights if offline.subject and offline.subject.weights else record.subject.weights
    assert getattr(weights, "value", None) == "fp4"
    tokens = next(r for r in offline.results if r.metric == "output_throughput")
    assert (tokens.value, tokens.quote) == (1042980.0, "Tokens per second: 1.04298e+06")
    vl = records["qwen3-vl-235b-a22b@NVIDIA"]  # the vision-language benchmark: samples/s only
    assert [(r.metric, r.value) for r in vl.arms[0].results] == [("request_throughput", 41.64)]
    assert vl.subject.model == "unknown-model"
    # its verbatim measurements.json states "weight_data_types": "fp32" and "weight_transformations": "quantization"
    # (the checkpoint is NVFP4): the file contradicts the stated type, so the format stays unknown with both texts
    assert isinstance(vl.subject.weights, Unknown) and vl.subject.weights.unknown == "unchecked"
    assert vl.subject.weights.note == CONTRADICTED.format("'fp32'", "'quantization'")
    assert audit_errors(ledger_dir) == []


CONTRADICTED = ("weight_data_types {} is a full-precision type, but the same measurements file states "
                "weight_transformations {}: the weights were quantized to a format the file does not name, so the "
                "stated type is not the format the run streamed")


@pytest.mark.parametrize(("stated", "transformations", "expected"), [
    ("fp16", "quantization, affine fusion", None),  # 176 arms of the bundled ledger before 2026-12-02
    ("fp32", "quantization", None),
    ("BF16", "fp8 quantization (dynamic)", None),
    ("fp16", "none", "fp16"),  # no transformation: the stated type stands
    ("fp32", "No", "fp32"),
    ("fp16", "Yes", "fp16"),  # a transformation that does not name quantization: not read as one
    ("fp8", "quantization", "fp8"),  # the stated type is the quantized one: no contradiction
])
def test_full_precision_weights_the_file_says_were_quantized_stay_unknown(stated: str, transformations: str,
                                                                           expected: str | None) -> None:
    text = (f'{{\n    "weight_data_types": "{stated}",\n    "weight_transformations": "{transformations}"\n}}\n')
    file = StoredFile(path="measurements.json", blob="0" * 40, data=text.encode())
    weights = weights_condition(file, "src", {"fp16", "bf16", "fp32", "fp8"}).weights
    if expected is None:
        assert isinstance(weights, Unknown) and weights.unknown == "unchecked"
        assert weights.note == CONTRADICTED.format(repr(stated), repr(transformations))
    else:
        assert isinstance(weights, Known) and weights.value == expected


@pytest.mark.parametrize(("stated", "formats", "expected"), [
    ("UINT4", {"uint4"}, "uint4"),  # the MLPerf spelling of unsigned 4-bit weights
    ("fp32", {"fp32"}, "fp32"),
    ("UINT4", {"int4"}, None),  # a ledger without the record keeps it unknown
    ("UNSET", {"uint4", "fp32", "int4"}, None),  # the submitter stated no format: never guessed
])
def test_weight_data_types_resolve_to_format_records(stated: str, formats: set[str], expected: str | None) -> None:
    text = f'{{\n    "starting_weights_filename": "x",\n    "weight_data_types": "{stated}",\n    "input_data_types": "int32"\n}}\n'
    file = StoredFile(path="measurements.json", blob="0" * 40, data=text.encode())
    weights = weights_condition(file, "src", formats).weights
    if expected is None:
        assert isinstance(weights, Unknown) and f"'{stated}'" in (weights.note or "")
    else:
        assert isinstance(weights, Known) and weights.value == expected
        assert (weights.quote, weights.source) == (f'"weight_data_types": "{stated}",', "src")


def test_a_pruned_system_does_not_claim_the_benchmarks_model(fixtures: Path, tmp_path: Path,
                                                              ledger_dir: Path) -> None:
    """NVIDIA's open ``H200-SXM-141GBx1_TRT_DepthPruned`` (verbatim v4.1 files) runs a depth-pruned Llama 2 under the
    ``llama2-70b-99`` folder: the record must not claim llama-2-70b (its parameter count sets the ceiling); the model
    is the placeholder and the body says why. Its fp16 + "quantization, affine fusion" weights stay unknown."""
    root = tmp_path / "depthpruned"
    shutil.copytree(fixtures / "mlperf_results_depthpruned", root)
    for args in (("init", "-q"), ("config", "core.autocrlf", "false"), ("remote", "add", "origin",
                 "https://github.com/mlcommons/inference_results_v4.1.git"), ("add", "-A"), ("commit", "-q", "-m", "r")):
        _git(root, *args)
    _references(ledger_dir)
    write_record(ledger_dir, Accelerator(kind="accelerator", id="nvidia-h200", title="H200", name="H200",
                                         vendor="NVIDIA", memory_gb=Unknown(unknown="unchecked", note="test"),
                                         memory_bandwidth_gbs=Unknown(unknown="unchecked", note="test")))
    import_files("mlperf-results", [root], ledger_dir, options())
    (record,) = _benchmarks(ledger_dir).values()
    assert record.subject.model == "unknown-model"
    assert ("- model: `MLPerf benchmark llama2-70b-99 run by system H200-SXM-141GBx1_TRT_DepthPruned, whose name says "
            "the model was pruned: not llama-2-70b's shape or parameter count, and no stored file states the pruned "
            "one` (no model record of the ledger matches; placeholder `unknown-model` used)") in record.body
    assert isinstance(record.subject.weights, Unknown)
    assert record.subject.weights.note == CONTRADICTED.format("'fp16'", "'quantization, affine fusion'")
    assert audit_errors(ledger_dir) == []


def _b60_dual(fixtures: Path, tmp_path: Path, ledger_dir: Path, *, board_source: bool) -> Benchmark:
    """Import Intel's verbatim v5.1 ``1-node-4x-BMG-Pro-B60-Dual`` files into a ledger holding the B60 (and, when
    ``board_source``, the bundled source saying the board carries two of them)."""
    root = tmp_path / "b60dual"
    shutil.copytree(fixtures / "mlperf_results_b60dual", root)
    for args in (("init", "-q"), ("config", "core.autocrlf", "false"), ("remote", "add", "origin",
                 "https://github.com/mlcommons/inference_results_v5.1.git"), ("add", "-A"), ("commit", "-q", "-m", "r")):
        _git(root, *args)
    u = Unknown(unknown="unchecked", note="test reference")
    write_record(ledger_dir, ModelArch(kind="model", id="llama-3.1-8b", title="m", name="m", hidden_size=u,
                                       layers_full_attention=u, num_heads=u, num_kv_heads=u, head_dim=u,
                                       vocab_size=u, params_total=u))
    write_record(ledger_dir, Engine(kind="engine", id="vllm", title="v", name="v"))
    write_record(ledger_dir, Accelerator(kind="accelerator", id="intel-arc-pro-b60", title="B60", name="B60",
                                         vendor="Intel", memory_gb=u, memory_bandwidth_gbs=u))
    if board_source:
        write_record(ledger_dir, Ledger.load(None).get(BOARD_SOURCE))
    import_files("mlperf-results", [root], ledger_dir, options())
    (record,) = _benchmarks(ledger_dir).values()
    return record


BOARD_SOURCE = "kekepower-arc-pro-b60-dual-48g-turbo"


def test_a_dual_gpu_board_counts_its_gpus(fixtures: Path, tmp_path: Path, ledger_dir: Path) -> None:
    """``"accelerators_per_node": "4"`` of ``[MAXSUN] MS-Intel Arc Pro B60 Dual 48G Turbo`` boards is 8 Arc Pro B60
    GPUs (a board carries two, per the stored board source): the record names the B60, a count of 8 derived with
    the system's lines and the board source quoted. Before 2026-12-02: the placeholder accelerator and an
    unknown count."""
    record = _b60_dual(fixtures, tmp_path, ledger_dir, board_source=True)
    assert record.subject.accelerator == "intel-arc-pro-b60"
    count = record.subject.accelerator_count
    assert isinstance(count, Known) and count.value == 8 and count.quote is None
    # the board source is reference data (like an accelerator's): listing it would join every record citing it
    # into one campaign (perfmodel/campaigns.py), so only the note names it
    assert count.source == record.sources[0] and record.sources == record.sources[:1]
    assert count.note.startswith("derived: GPUs per board × accelerators_per_node = 2 × 4 = 8 (mlperf_catalog.BOARDS)")
    system = Path(fixtures / "mlperf_results_b60dual/closed/Intel/systems/1-node-4x-BMG-Pro-B60-Dual.json").read_text()
    for line in ('"accelerators_per_node": "4",', '"accelerator_model_name": "[MAXSUN] MS-Intel Arc Pro B60 Dual 48G '
                 'Turbo",', '"number_of_nodes": "1",'):
        assert line in [ln.strip() for ln in system.splitlines()], line  # verbatim lines of the stored file
        assert repr(line) in count.note, line
    board = Ledger.load(ledger_dir).get(BOARD_SOURCE)
    assert isinstance(board, Source)
    quote = count.note.split(f"source {BOARD_SOURCE} ", 1)[1]
    assert quote.startswith("'Each Arc Pro B60 die carries") and quote.strip("'") in board.body
    assert "not yet matched" not in record.body
    assert audit_errors(ledger_dir) == []


def test_a_dual_gpu_board_without_its_source_stays_unmatched(fixtures: Path, tmp_path: Path,
                                                               ledger_dir: Path) -> None:
    """A target ledger without the board's source: no GPU count is claimed; the body says which source is missing."""
    record = _b60_dual(fixtures, tmp_path, ledger_dir, board_source=False)
    assert record.subject.accelerator == "unknown-accelerator"
    assert isinstance(record.subject.accelerator_count, Unknown)
    assert f"a board of 2 × intel-arc-pro-b60 per source {BOARD_SOURCE}, which the target ledger lacks" in record.body
    assert record.sources == record.sources[:1]
