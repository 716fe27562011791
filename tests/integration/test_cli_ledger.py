"""The ledger commands in-process (exit codes, one-line errors, output formats), plus two subprocess smoke tests
that the console entry point behaves the same."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from benchledger import __version__

from cli_runner import run_cli
from ledger_builder import benchmark, reference_records, source, write_all


class Run:
    """A finished command: ``returncode``, ``stdout``, ``stderr`` (the subprocess names, for both kinds)."""

    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run(*args: str) -> Run:
    result = run_cli(*args)
    return Run(result.exit_code, result.stdout, result.stderr)


def subprocess_run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchledger", *args], capture_output=True, text=True, timeout=120,
                          check=False)


def test_console_entry_point_help_version_and_one_line_error(mini_ledger: Path) -> None:
    """Smoke: the real process lists the commands, prints its version, and a bad query is one line, exit 2."""
    out = subprocess_run("--help")
    assert out.returncode == 0
    for command in ("audit", "query", "show", "export", "init", "fmt"):
        assert command in out.stdout
    version = subprocess_run("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"benchledger {__version__}"
    bad = subprocess_run("query", "SELECT nope FROM nowhere", "--ledger", str(mini_ledger))
    assert bad.returncode == 2 and bad.stderr.startswith("error: query failed")
    assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr


def test_in_process_errors_match_the_console_script(mini_ledger: Path) -> None:
    """The one-line handling is in the app: CliRunner sees exit 2 and one line, ``--debug`` the exception."""
    out = run("query", "SELECT nope FROM nowhere", "--ledger", str(mini_ledger))
    assert out.returncode == 2 and out.stderr.startswith("error: query failed")
    assert len(out.stderr.strip().splitlines()) == 1
    from benchledger.errors import BenchledgerError

    try:
        run_cli("--debug", "query", "SELECT nope FROM nowhere", "--ledger", str(mini_ledger))
    except BenchledgerError as exc:
        assert "query failed" in str(exc)
    else:
        raise AssertionError("--debug should let the error through")
    assert run("--version").stdout.strip() == f"benchledger {__version__}"


def test_audit_json_and_exit_status(mini_ledger: Path, tmp_path: Path) -> None:
    ok = run("audit", "--ledger", str(mini_ledger), "--json")
    assert ok.returncode == 0
    assert json.loads(ok.stdout)["counts"]["error"] == 0
    bad = benchmark()
    bad["arms"][1]["results"][1]["value"] = 42.0
    root = write_all(tmp_path / "bad", [source(), *reference_records(), bad])
    failed = run("audit", "--ledger", str(root), "--json")
    assert failed.returncode == 1
    assert "provenance.number-not-in-quote" in json.loads(failed.stdout)["by_code"]


def test_query_formats(mini_ledger: Path) -> None:
    sql = "SELECT arm, value FROM results WHERE metric = 'output_throughput' ORDER BY arm"
    as_json = run("query", sql, "--ledger", str(mini_ledger), "--format", "json")
    assert json.loads(as_json.stdout) == [{"arm": "base", "value": 19.13}, {"arm": "mtp4", "value": 24.06}]
    as_csv = run("query", sql, "--ledger", str(mini_ledger), "--format", "csv")
    assert as_csv.stdout.splitlines() == ["arm,value", "base,19.13", "mtp4,24.06"]


def test_bad_sql_is_one_line(mini_ledger: Path) -> None:
    out = run("query", "SELECT nope FROM nowhere", "--ledger", str(mini_ledger))
    assert out.returncode == 2
    assert out.stderr.startswith("error: query failed")
    assert "Traceback" not in out.stderr


def test_missing_ledger_is_one_line(tmp_path: Path) -> None:
    out = run("audit", "--ledger", str(tmp_path / "nope"))
    assert out.returncode != 0
    assert "Traceback" not in out.stderr


def test_show_prints_derived_comparison(mini_ledger: Path) -> None:
    out = run("show", "test-bench", "--ledger", str(mini_ledger))
    assert out.returncode == 0
    assert "speedup = arm vs its baseline" in out.stdout and "1.2577" in out.stdout


def test_init_and_fmt(tmp_path: Path, mini_ledger: Path) -> None:
    target = tmp_path / "mine"
    assert run("init", str(target)).returncode == 0
    assert (target / "benchmarks").is_dir() and (target / "waivers.yaml").exists()
    assert run("audit", "--ledger", str(target)).returncode == 0
    path = mini_ledger / "benchmarks" / "test-bench.md"
    path.write_text(path.read_text().replace("title: Test experiment", "title:    Test experiment"))
    assert run("fmt", "--check", "--ledger", str(mini_ledger)).returncode == 1
    assert run("fmt", "--ledger", str(mini_ledger)).returncode == 0
    assert run("fmt", "--check", "--ledger", str(mini_ledger)).returncode == 0


def test_installed_without_the_bundled_ledger_says_so(tmp_path: Path) -> None:
    """As from a wheel: the package alone (no ledger/ beside it) names the cause in one line, exit 2."""
    import benchledger

    site = tmp_path / "site-packages"
    shutil.copytree(Path(benchledger.__file__).parent, site / "benchledger",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("BENCHLEDGER_LEDGER", "PYTHONPATH")}
    done = subprocess.run([sys.executable, "-m", "benchledger", "audit"], capture_output=True, text=True, timeout=120,
                          check=False, cwd=tmp_path, env={**env, "PYTHONPATH": str(site)})
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: no bundled ledger at ") and "source checkout" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
