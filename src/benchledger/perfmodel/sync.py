"""Activation syncs of an engine whose root node gathers the tensor-parallel slices over its one network port.

distributed-llama splits every layer over ``n`` devices and synchronises through the root: its README's "Network
Transfer for Generating Token" table (``ledger/sources/b4rtaz-distributed-llama-readme-md-bd890603.md``, Q80
buffer, Llama 3 8B: 32 layers, hidden 4096) reads 544 / 1632 / 3808 kB at 2 / 4 / 8 devices, which is exactly
``4 · L · (n − 1)`` hidden-size vectors in Q80 (a ``BlockQ80`` of 32 int8 quants and one 16-bit delta, 34 bytes per
32 values: ``ledger/sources/distributed-llama-quants-hpp-v0-1-0.md``) per token, kB = 1024 bytes. Those bytes go
through the root's port one transfer after another, so a token's sync costs ``bytes / link`` (the link's
per-direction rate). No stored source outside the measured campaign gives the latency of one sync round on that
network, so none is charged: the term is a lower bound on the sync time.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RootSync:
    """How many hidden-size vectors per layer and per worker cross the root's port each token, and their size."""

    vectors_per_layer_per_worker: int
    bytes_per_element: float
    source: str
    derivation: str


Q80_BYTES_PER_ELEMENT = (2 + 32) / 32
"""``BlockQ80``: ``uint16_t d; // delta`` and ``int8_t qs[QK80]`` with ``#define QK80 32``."""

ROOT_SYNC: dict[str, RootSync] = {
    "distributed-llama": RootSync(
        4, Q80_BYTES_PER_ELEMENT, "b4rtaz-distributed-llama-readme-md-bd890603",
        "README 'Network Transfer for Generating Token', Q80 buffer, Llama 3 8B: 544 kB at 2 devices = "
        "4 × 32 layers × 1 worker × 4096 × 34/32 bytes (1632 and 3808 kB at 4 and 8 devices: 3 and 7 workers)"),
}
"""Engine id → its root-node sync (engines that sync by ring all-reduce are absent)."""


def root_sync_bytes(sync: RootSync, layers: int, hidden: int, devices: int) -> float:
    """Bytes through the root's port per token: ``vectors · layers · (devices − 1) · hidden · bytes/element``."""
    return sync.vectors_per_layer_per_worker * layers * max(devices - 1, 0) * hidden * sync.bytes_per_element


__all__ = ["Q80_BYTES_PER_ELEMENT", "ROOT_SYNC", "RootSync", "root_sync_bytes"]
