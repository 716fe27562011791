"""What the command line prints (in-process, ``CliRunner``): plain tables off a terminal, sized columns in one,
audit lines like ruff's, the ``show`` summary, ids people type, help text and metavars, ``site serve`` ports."""

from __future__ import annotations

import io
import socket
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from benchledger.cli.render import may_be_terminal, rich_table

from cli_runner import command_tree, run_cli
from ledger_builder import benchmark, reference_records, source, write_all

LONG_ID = "qwen38-mtp-readme-rtx-5090-hagope-a-rather-long-record-id"


def test_piped_table_is_plain_text_and_never_cuts_a_number_or_id(mini_ledger: Path) -> None:
    """Off a terminal (CliRunner, a pipe) a wide table is aligned text: 1000 stays 1000, an id stays whole
    (rich at 80 columns folded them: `100`/`0`)."""
    cols = ", ".join(f"1000 AS n{i}" for i in range(12))
    out = run_cli("query", f"SELECT '{LONG_ID}' AS record_id, {cols}", "--ledger", str(mini_ledger))
    assert out.exit_code == 0, out.stderr
    header, rule, row = out.stdout.splitlines()
    assert header.split() == ["record_id", *(f"n{i}" for i in range(12))]
    assert set(rule.replace(" ", "")) == {"-"}
    assert row.split() == [LONG_ID, *["1000"] * 12]
    assert "│" not in out.stdout and "┃" not in out.stdout


def test_tsv_format(mini_ledger: Path) -> None:
    sql = "SELECT arm, value FROM results WHERE metric = 'output_throughput' ORDER BY arm"
    out = run_cli("query", sql, "--ledger", str(mini_ledger), "--format", "tsv")
    assert out.stdout.splitlines() == ["arm\tvalue", "base\t19.13", "mtp4\t24.06"]


def test_terminal_table_sizes_columns_to_ids_and_numbers() -> None:
    """In a 120-column terminal ids and numbers keep their width; only the long prose column wraps."""
    con = Console(file=io.StringIO(), force_terminal=True, width=120, color_system=None)
    prose = "a long explanation that is allowed to wrap onto several lines " * 3
    con.print(rich_table(["record_id", "arm", "tok/s", "message"], [(LONG_ID, "c4-mtp-k3", 1000, prose)]))
    text = con.file.getvalue()  # type: ignore[attr-defined]
    assert any(LONG_ID in line and "c4-mtp-k3" in line and "1000" in line for line in text.splitlines())


@pytest.mark.parametrize("tty", [False, True])
@pytest.mark.parametrize("env", [{}, {"FORCE_COLOR": "1"}, {"FORCE_COLOR": ""}, {"TTY_COMPATIBLE": "1"},
                                 {"TTY_COMPATIBLE": "0"}])
def test_a_table_skips_rich_only_where_rich_would_print_plain_text(monkeypatch: pytest.MonkeyPatch,
                                                                    env: dict[str, str], tty: bool) -> None:
    """``echo_table`` writes plain text without loading rich when ``may_be_terminal`` says no: rich's console
    must say no there too (a TTY and rich's FORCE_COLOR / TTY_COMPATIBLE overrides)."""

    class Stream(io.StringIO):
        def isatty(self) -> bool:
            return tty

    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    stream = Stream()
    if Console(file=stream).is_terminal:
        assert may_be_terminal(stream)
    assert may_be_terminal(stream) == (tty or bool(env))


def _audit_ledger(root: Path) -> Path:
    """A ledger with an error (a number not in its quote) that is waived, and a waiver that matches nothing."""
    bad = benchmark()
    bad["arms"][1]["results"][1]["value"] = 42.0
    write_all(root, [source(), *reference_records(), bad])
    waivers = [
        {"code": "provenance.number-not-in-quote", "record": "test-bench", "reason": "a test waiver for this",
         "date": "2026-11-29"},
        {"code": "provenance.quoted-change-mismatch", "record": "test-bench", "reason": "a test waiver for this",
         "date": "2026-11-29"},
        {"code": "arms.baseline-differs", "record": "test-bench", "reason": "matches no finding at all",
         "date": "2026-11-29"},
    ]
    (root / "waivers.yaml").write_text(yaml.safe_dump(waivers), encoding="utf-8")
    return root


def test_audit_prints_one_line_per_finding_hides_waived_and_ends_with_counts(tmp_path: Path) -> None:
    root = _audit_ledger(tmp_path / "ledger")
    out = run_cli("audit", "--ledger", str(root))
    assert out.exit_code == 0, out.stdout  # the only error is waived
    lines = out.stdout.splitlines()
    assert "provenance.number-not-in-quote" not in out.stdout
    unused = [line for line in lines if " waivers.unused " in line]
    assert len(unused) == 1 and unused[0].split(": ", 1)[1].startswith("warning waivers.unused ")
    assert lines[-1].startswith("6 records: 0 errors, 1 warnings") and "2 waived (listed with --show-waived)" in lines[-1]
    shown = run_cli("audit", "--ledger", str(root), "--show-waived").stdout
    waived = [line for line in shown.splitlines() if "provenance.number-not-in-quote" in line]
    assert len(waived) == 1
    path, rest = waived[0].split(": ", 1)
    assert path.endswith("benchmarks/test-bench.md") or path.split(":")[0].endswith("benchmarks/test-bench.md")
    assert rest.startswith("error (waived) provenance.number-not-in-quote arms.") and "[waived: a test waiver" in rest


def test_audit_only_rejects_unknown_checks_and_skips_unused_waivers(tmp_path: Path) -> None:
    root = _audit_ledger(tmp_path / "ledger")
    bad = run_cli("audit", "--ledger", str(root), "--only", "provenanc")
    assert bad.exit_code == 2 and bad.stderr.startswith("error: --only: unknown check 'provenanc'")
    assert "did you mean provenance?" in bad.stderr
    only = run_cli("audit", "--ledger", str(root), "--only", "provenance")
    assert only.exit_code == 0 and "waivers.unused" not in only.stdout
    assert "0 warnings" in only.stdout.splitlines()[-1]


def test_show_prints_a_summary_and_the_yaml_only_when_asked(mini_ledger: Path) -> None:
    out = run_cli("show", "TEST-BENCH", "--ledger", str(mini_ledger))  # ids are case-insensitive
    assert out.exit_code == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "Test experiment"
    assert any(line.startswith("subject: model test-model · engine test-engine 1.2.3") for line in lines)
    mtp = [line.split() for line in lines if line.startswith("mtp4") and "output_throughput" in line]
    assert mtp and mtp[0][-1] == "1.2577"  # derived speedup next to the arm's headline result
    assert "provenance: quoted" not in out.stdout and "full record: --yaml" in out.stdout
    full = run_cli("show", "test-bench", "--ledger", str(mini_ledger), "--yaml")
    assert "provenance: quoted" in full.stdout


def test_unknown_ids_suggest_the_closest_and_the_listing_query(mini_ledger: Path) -> None:
    out = run_cli("show", "test-bnch", "--ledger", str(mini_ledger))
    assert out.exit_code == 2
    assert "did you mean test-bench or" in out.stderr and 'benchledger query "SELECT id, title FROM records' in out.stderr
    bundled = run_cli("predict", "--model", "qwen3.8-27", "--hardware", "nvidia-gb10", "--weights", "fp8-e4m3",
                      "--context", "1000")
    assert bundled.exit_code == 2 and "did you mean qwen3.8-27b" in bundled.stderr
    assert "WHERE kind = 'model'" in bundled.stderr
    folded = run_cli("predict", "--model", "QWEN3.8-27B", "--hardware", "NVIDIA-GB10", "--weights", "FP8-E4M3",
                     "--context", "1000", "--json")
    assert folded.exit_code == 0, folded.stderr


def test_every_option_has_help_and_a_real_metavar() -> None:
    options = [(f"benchledger {path}".strip(), p) for path, command in command_tree().items() for p in command.params
               if getattr(p, "param_type_name", "") == "option"]
    assert len(options) > 50
    missing = [f"{path} {p.opts[0]}" for path, p in options if not getattr(p, "help", None)]  # type: ignore[attr-defined]
    assert missing == []
    commands = sorted({path for path, _ in options})
    for path in commands:
        text = run_cli(*path.split()[1:], "--help").stdout
        assert "<bool>" not in text, path


def test_predict_and_advise_do_not_share_a_name_with_two_meanings() -> None:
    # --context is the KV length during decode in both; advise's prompt length has its own name
    for command in ("advise", "predict"):
        text = " ".join(run_cli(command, "--help").stdout.split())
        assert "--context" in text and "KV length during decode" in text, command
    assert "--input-tokens" in run_cli("advise", "--help").stdout
    both = run_cli("advise", "--model", "qwen3.8-27b", "--hardware", "intel-arc-pro-b60", "--output-tokens", "10",
                   "--context", "1000", "--input-tokens", "1000")
    assert both.exit_code == 2 and "exactly one of --input-tokens" in both.stderr


def test_site_serve_default_port_is_no_engines_and_a_busy_port_is_one_line(mini_ledger: Path) -> None:
    from benchledger.site.serve import DEFAULT_PORT

    assert DEFAULT_PORT not in (8000, 8001, 8002, 8080, 30000, 11434, 1234, 5000, 3000)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        out = run_cli("site", "serve", "--port", str(port), "--ledger", str(mini_ledger))
    assert out.exit_code == 2
    assert out.stderr.strip() == f"error: port {port} on 127.0.0.1 is in use; pass --port N (0 = any free port)"


@pytest.mark.parametrize("top", ["1", "3"])
def test_outcomes_lists_helped_and_hurt_with_context_and_concurrency(tmp_path: Path, top: str) -> None:
    from ledger_builder import write_tiny_ledger

    root = write_tiny_ledger(tmp_path / "ledger")
    out = run_cli("outcomes", "--ledger", str(root), "--top", top)
    assert out.exit_code == 0, out.stderr
    text = out.stdout.splitlines()
    assert text[0].startswith("speculative decoding in 2 arms") and "1 benefit" in text[0] and "1 harm" in text[0]
    helped = text.index("helped most (top " + top + ")")
    hurt = text.index("hurt most (top " + top + ")")
    assert text[helped + 1].split()[:10] == ["record_id", "arm", "spec", "accelerator", "engine", "ctx", "conc",
                                            "metric", "speedup", "outcome"]
    assert text[helped + 3].split() == ["tiny-mtp-bench", "c1-mtp", "mtp", "k=3", "tiny-gpu", "tiny-engine", "1000",
                                        "1", "output_throughput", "1.6", "benefit"]
    assert text[hurt + 3].split() == ["tiny-mtp-bench", "c4-mtp", "mtp", "k=3", "tiny-gpu", "tiny-engine", "1000",
                                      "4", "output_throughput", "0.8", "harm"]
