"""distributed-llama's root-node sync: the README's bytes per token, costed over the Pi 4B's gigabit port.

The three cells of the README's "Network Transfer for Generating Token" Q80 table (Llama 3 8B) are read from the
stored source and compared with ``sync.root_sync_bytes``; the Pi 4B arm's step must carry that many bytes over
125 MB/s instead of a ring all-reduce over the default link.
"""

from __future__ import annotations

import re

from benchledger.ledger import Ledger, load_record
from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.perfmodel.calibrate import observations
from benchledger.perfmodel.predict import Params, predict
from benchledger.perfmodel.sync import ROOT_SYNC, root_sync_bytes
from benchledger.schema import Benchmark

SOURCE = "b4rtaz-distributed-llama-readme-md-bd890603"
PI4_7B = "b4rtaz-llama-2-7b-raspi-4b-8-gb-f37cdfde"


def _q80_table_kib() -> dict[int, float]:
    """Devices → kB per token of the README's Q80 buffer table (Llama 3 8B)."""
    text = (bundled_ledger_dir() / "sources" / f"{SOURCE}.md").read_text(encoding="utf-8")
    q80 = text.split("**Q80 Buffer**", 1)[1]
    header = re.search(r"\|\s*Model\s*\|(.*)\|", q80)
    row = re.search(r"\|\s*Llama 3 8B\s*\|(.*)\|", q80)
    assert header is not None and row is not None
    devices = [int(re.search(r"\d+", c).group()) for c in header.group(1).split("|")]  # type: ignore[union-attr]
    kib = [float(re.search(r"[\d.]+", c).group()) for c in row.group(1).split("|")]  # type: ignore[union-attr]
    return dict(zip(devices, kib, strict=True))


def test_the_formula_reproduces_every_cell_of_the_readme_table() -> None:
    table = _q80_table_kib()
    assert sorted(table) == [2, 4, 8]
    sync = ROOT_SYNC["distributed-llama"]
    for devices, kib in table.items():  # Llama 3 8B: 32 layers, hidden 4096 (its config)
        assert root_sync_bytes(sync, layers=32, hidden=4096, devices=devices) == kib * 1024


def _pi_arm(name: str) -> tuple[float, object]:
    ledger = Ledger.load()
    record = load_record(bundled_ledger_dir() / "benchmarks" / f"{PI4_7B}.md")
    assert isinstance(record, Benchmark)
    obs, _ = observations(ledger, unknown_context=1000.0, unknown_concurrency=1, records=[record])
    o = next(o for o in obs if o.ref == f"{PI4_7B}#{name}")
    return o.scenario.hardware.link_bandwidth or 0.0, predict(o.scenario, Params())


def test_a_pi4_cluster_pays_the_readme_bytes_over_its_gigabit_port() -> None:
    link, p = _pi_arm("x8")
    assert link == 125e6  # gigabit-ethernet-pi4: 1000 Mbps per direction
    term = p.step.term("root_sync")  # type: ignore[attr-defined]
    assert term is not None and p.step.term("tp_allreduce") is None  # type: ignore[attr-defined]
    # Llama 2 7B: 32 layers, hidden 4096 -> the README's 8-device 3808 kB, over 125 MB/s
    assert term.bytes == 3808 * 1024
    assert abs(term.seconds - 3808 * 1024 / 125e6) < 1e-12


def test_a_single_device_has_no_sync() -> None:
    _, p = _pi_arm("x1")
    assert p.step.term("root_sync") is None  # type: ignore[attr-defined]
