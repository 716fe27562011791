"""The sweep file: one YAML document validated by one pydantic model, ``SweepFile``.

Its JSON Schema is generated into ``schemas/sweep.schema.json`` (``python -m benchledger.schema_export``).
Server templates hold the launch command with ``{placeholders}``; the matrix crosses server parameters into
cells; the client grid is what runs inside each cell; pairing says which cells are arms of one experiment and
how paired arms share their allocation. ``benchledger sweep example`` prints a commented file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from benchledger.errors import SweepError

SLUG_PATTERN = r"^[a-z0-9]+(?:[._-][a-z0-9]+)*$"
"""The ledger's id pattern (``benchledger.schema.provenance.SLUG_PATTERN``; a test keeps them equal). Not
imported from there: loading every record model would double the time ``sweep plan`` takes."""

SWEEP_SCHEMA_VERSION = 1
RUNTIME_PLACEHOLDERS: tuple[str, ...] = ("port", "python", "out", "cell", "sweep_dir")
"""Filled when a cell runs, not part of its key: a free port, this Python, the sweep's output folder (on the
shared filesystem under Slurm), the cell's name, the folder of the sweep file."""

AxisValue = str | int | float | bool
CLIENT_AXES: tuple[str, ...] = ("input_tokens", "output_tokens", "concurrency", "request_rate")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LedgerIds(_Strict):
    """The ledger ids the record of a cell cites; strings may use ``{axis}`` and ``{var}`` placeholders."""

    model: str = Field(description="Ledger model id (models/).")
    engine: str = Field(description="Ledger engine id (engines/).")
    accelerator: str = Field(description="Ledger accelerator id (accelerators/).")
    accelerator_count: int | None = Field(default=None, ge=1, description="Devices per cell; unset: unknown.")
    weights: str | None = Field(default=None, description="Weight format id (formats/); unset: unknown.")
    kv_cache: str | None = Field(default=None, description="KV-cache format id (formats/); unset: not recorded.")
    tp: int | None = Field(default=None, ge=1, description="Tensor parallel size; unset: unknown.")
    pp: int | None = Field(default=None, ge=1)
    ep: int | None = Field(default=None, ge=1)
    dp: int | None = Field(default=None, ge=1)


class ServerTemplate(_Strict):
    """A named way to start one engine server."""

    launch: str = Field(min_length=1, description="Command line; placeholders: axes, vars, per_value entries "
                        "and the runtime ones (port, python, out, cell, sweep_dir).")
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment (placeholders allowed). "
                                "Not for secrets: the file is copied into the sweep folder and the commands into "
                                "records; engines inherit the environment `sweep run` (or the Slurm task) runs in.")
    port: int | Literal["auto"] = Field(default="auto", description="'auto': a free port when the cell runs; "
                                        "a number: that port (+ i for the i-th server up at once).")
    ready_timeout_s: float = Field(default=600.0, gt=0, description="Seconds to wait for /health.")
    served_model: str | None = Field(default=None, description="Model name sent in requests.")
    version: str | None = Field(default=None, description="Declared engine version or image digest (part of "
                                "the cell key; the server-reported version goes into the manifest).")
    per_value: dict[str, dict[str, dict[str, str]]] = Field(
        default_factory=dict, description="axis → value → {placeholder: text}: command fragments chosen by a "
        "cell's axis values (e.g. spec → draft-model:4 → {spec_flags: '--draft …'}).")
    ledger: LedgerIds


class Matrix(_Strict):
    """Server parameters crossed into cells."""

    axes: dict[str, list[AxisValue]] = Field(
        default_factory=dict, description="axis → values; the reserved axis 'server' picks a template (default: "
        "every template).")
    exclude: list[dict[str, AxisValue]] = Field(
        default_factory=list, description="A combination matching every key of a rule is dropped.")
    include: list[dict[str, AxisValue]] = Field(
        default_factory=list, description="Extra combinations (every axis set), added after exclusion.")

    @model_validator(mode="after")
    def _nonempty(self) -> Matrix:
        for axis, values in self.axes.items():
            if not values:
                raise ValueError(f"axis {axis!r} has no values")
            if len(set(map(str, values))) != len(values):
                raise ValueError(f"axis {axis!r} repeats a value")
        return self


class ClientGrid(_Strict):
    """What runs against the server(s) of a cell: input × output tokens × concurrency (or rate)."""

    endpoint: Literal["completions", "chat"] = "completions"
    input_tokens: list[int] = Field(default_factory=lambda: [128], description="Synthetic prompt lengths.")
    output_tokens: list[int] = Field(default_factory=lambda: [128], description="max_tokens values.")
    concurrency: list[int] = Field(default_factory=list, description="Closed-loop levels.")
    request_rate: list[float] = Field(default_factory=list, description="Open-loop rates, req/s.")
    arrival: Literal["poisson", "constant"] = "poisson"
    prompts: str = Field(default="synthetic", description="'synthetic' or a ShareGPT JSON / JSONL file "
                         "(relative to the sweep file); with a file, input_tokens must be one value (unused).")
    warmup: int = Field(default=2, ge=0, description="Warmup requests per arm per point (excluded).")
    num_prompts: int = Field(default=100, ge=1, description="Measured requests per arm per point.")
    max_seconds: float | None = Field(default=None, gt=0, description="Time cap per point.")
    temperature: float | None = Field(default=0.0, description="Pinned temperature; null: server default.")
    seed: int = 0
    ignore_eos: bool = False
    round_size: int | None = Field(default=None, ge=1, description="Prompts per paired round.")
    timeout_s: float = Field(default=600.0, gt=0, description="Per-request timeout.")
    repeats: int = Field(default=1, ge=1, description="Times the whole grid runs per cell (blocks).")
    exclude: list[dict[str, float]] = Field(
        default_factory=list, description="Client points to drop: a point matching every key of a rule "
        "(input_tokens, output_tokens, concurrency, request_rate) is not run, e.g. {input_tokens: 32768, "
        "concurrency: 64} when that much KV cache does not fit.")

    @model_validator(mode="after")
    def _load(self) -> ClientGrid:
        if not self.concurrency and not self.request_rate:
            raise ValueError("give concurrency or request_rate")
        if any(c < 1 for c in self.concurrency) or any(not r > 0 for r in self.request_rate):
            raise ValueError("concurrency must be ≥ 1 and request_rate > 0")
        if not self.input_tokens or not self.output_tokens:
            raise ValueError("input_tokens and output_tokens need at least one value")
        for rule in self.exclude:
            unknown = sorted(set(rule) - set(CLIENT_AXES))
            if unknown or not rule:
                raise ValueError(f"exclude {rule}: keys must be among {', '.join(CLIENT_AXES)}")
        if self.prompts != "synthetic" and len(self.input_tokens) != 1:
            raise ValueError("with a prompts file, input_tokens must be a single value (it is not used)")
        return self


class Pairing(_Strict):
    """Which cells are arms of one experiment, and how paired arms share one allocation."""

    axis: str = Field(default="spec", description="Cells differing only in this axis form one group; its "
                      "values are speculation configs 'METHOD[:K]' or the baseline value.")
    baseline: str = Field(default="none", description="The axis value of the baseline cell of each group.")
    mode: Literal["concurrent", "alternating"] = Field(
        default="concurrent", description="concurrent: every server of the group up at once, interleaved rounds "
        "(needs memory for all); alternating: one server at a time, A B A B blocks (one per repeat), the "
        "server restarted between blocks.")


class SweepFile(_Strict):
    """A whole sweep: servers × matrix → cells, each running the client grid; cells paired into experiments."""

    schema_version: Literal[1] = 1
    name: str = Field(pattern=SLUG_PATTERN, description="Slug; prefixes record ids.")
    description: str = ""
    vars: dict[str, str] = Field(default_factory=dict, description="Placeholders for commands (may use the "
                                 "runtime placeholders and axes).")
    setup: list[str] = Field(default_factory=list, description="Commands run at the start of every "
                             "allocation, before any server (e.g. fetch or generate models); must be idempotent.")
    setup_timeout_s: float = Field(default=1800.0, gt=0)
    servers: dict[str, ServerTemplate] = Field(min_length=1)
    matrix: Matrix = Field(default_factory=Matrix)
    client: ClientGrid
    pairing: Pairing = Field(default_factory=Pairing)
    references: Literal["none", "demo"] = Field(
        default="none", description="'demo': write the tiny demo's reference records (model, engine, "
        "accelerator, format) into the ledger when it lacks them.")
    title: str = Field(default="", description="Record title prefix.")


def load_sweep(path: Path) -> SweepFile:
    """Read and validate a sweep file; errors name the file and the field."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SweepError(f"{path}: cannot read: {exc}") from exc
    except yaml.YAMLError as exc:
        raise SweepError(f"{path}: invalid YAML: {exc}") from exc
    return parse_sweep(data, str(path))


def parse_sweep(data: object, where: str = "sweep file") -> SweepFile:
    """Validate already-parsed YAML data."""
    if not isinstance(data, dict):
        raise SweepError(f"{where}: expected a mapping at the top level")
    try:
        return SweepFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise SweepError(f"{where}: {loc or '<top>'}: {first['msg']}{more}") from None


__all__ = [
    "CLIENT_AXES",
    "RUNTIME_PLACEHOLDERS",
    "SWEEP_SCHEMA_VERSION",
    "AxisValue",
    "ClientGrid",
    "LedgerIds",
    "Matrix",
    "Pairing",
    "ServerTemplate",
    "SweepError",
    "SweepFile",
    "load_sweep",
    "parse_sweep",
]
