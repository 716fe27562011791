"""Resolve a sweep file into cells and pairing groups, each keyed by a hash of what it runs.

A **cell** is one combination of the matrix: one server configuration and the whole client grid. Its key is the
sha256 of its fully resolved configuration (server template, axis values, vars, setup, client grid, pairing
mode); the runtime placeholders (port, python, out, cell, sweep_dir) are not part of it. A **group** is a
baseline cell and the cells that differ from it only in the pairing axis; the group is the unit of allocation
(both arms of a pair always run inside one allocation), keyed by the hash of its cells' keys. Unpaired sweeps
(no pairing axis) have groups of one cell. Pure: no I/O besides reading nothing.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import string
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchledger.errors import SweepError
from benchledger.sweep.spec import RUNTIME_PLACEHOLDERS, AxisValue, ClientGrid, SweepFile

KEY_LENGTH = 12
PLAN_SCHEMA_VERSION = 1


class ClientPoint(BaseModel):
    """One point of the client grid: input × output tokens × one load level."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_tokens: int
    output_tokens: int
    concurrency: int | None = None
    request_rate: float | None = None

    @property
    def label(self) -> str:
        load = f"conc-{self.concurrency}" if self.concurrency is not None else f"rate-{self.request_rate:g}"
        return f"i{self.input_tokens}-o{self.output_tokens}-{load}"


class Cell(BaseModel):
    """One server configuration of the matrix, with its key and its place in a group."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Slug from the varying axis values; unique in the sweep.")
    key: str
    server: str
    axes: dict[str, str]
    group: str = Field(description="Key of the group this cell belongs to.")
    baseline: bool = Field(description="The group's baseline cell (pairing axis = baseline value).")
    spec_method: str | None = None
    spec_k: int | None = None


class Group(BaseModel):
    """A baseline cell and the cells paired with it; the unit of allocation."""

    model_config = ConfigDict(extra="forbid")

    key: str
    label: str = Field(description="Slug from the varying non-pairing axes ('all' when none varies).")
    cells: list[str] = Field(description="Cell names, baseline first.")

    @property
    def folder(self) -> str:
        return f"{self.label}-{self.key}"


class Plan(BaseModel):
    """The resolved sweep, written to ``<out>/plan.json`` so every task reads the same thing."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = PLAN_SCHEMA_VERSION
    sweep: SweepFile
    sweep_dir: str
    cells: list[Cell]
    groups: list[Group]
    points: list[ClientPoint]

    def cell(self, name: str) -> Cell:
        return next(c for c in self.cells if c.name == name)

    def group(self, key: str) -> Group:
        for g in self.groups:
            if g.key == key:
                return g
        raise SweepError(f"no group {key!r} in this sweep's plan")

    def group_cells(self, group: Group) -> list[Cell]:
        return [self.cell(n) for n in group.cells]


def digest(data: Any) -> str:
    """Short sha256 of canonical JSON."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:KEY_LENGTH]


def slug(text: str) -> str:
    """A ledger-safe slug of free text (``draft-model:4`` → ``draft-model-4``)."""
    out = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return out or "x"


def client_points(client: ClientGrid) -> list[ClientPoint]:
    """Input × output × load, in file order (concurrency levels before rates)."""
    loads: list[dict[str, Any]] = [{"concurrency": c} for c in client.concurrency]
    loads += [{"request_rate": r} for r in client.request_rate]
    points = [ClientPoint(input_tokens=i, output_tokens=o, **load)
              for i, o, load in itertools.product(client.input_tokens, client.output_tokens, loads)]
    kept = [p for p in points if not any(all(getattr(p, k) == v for k, v in rule.items()) for rule in client.exclude)]
    if not kept:
        raise SweepError("client.exclude drops every client point")
    return kept


def combinations(sweep: SweepFile) -> list[dict[str, str]]:
    """Every matrix combination (as strings) after exclude, then include; 'server' always set."""
    axes: dict[str, list[AxisValue]] = dict(sweep.matrix.axes)
    if "server" not in axes:
        axes = {"server": list(sweep.servers), **axes}
    unknown = [str(s) for s in axes["server"] if str(s) not in sweep.servers]
    if unknown:
        raise SweepError(f"matrix.axes.server: no server template named {', '.join(unknown)}")
    names = list(axes)
    combos = [dict(zip(names, map(str, values), strict=True)) for values in itertools.product(*axes.values())]
    for rule in sweep.matrix.exclude:
        _check_rule_axes(rule, names, "exclude")
        combos = [c for c in combos if not all(c[k] == str(v) for k, v in rule.items())]
    for rule in sweep.matrix.include:
        _check_rule_axes(rule, names, "include")
        extra = {k: str(v) for k, v in rule.items()}
        if set(extra) != set(names):
            raise SweepError(f"matrix.include {rule}: set every axis ({', '.join(names)})")
        if extra not in combos:
            combos.append(extra)
    if not combos:
        raise SweepError("the matrix has no cells left after exclude")
    return combos


def _check_rule_axes(rule: dict[str, AxisValue], names: list[str], where: str) -> None:
    unknown = sorted(set(rule) - set(names))
    if unknown:
        raise SweepError(f"matrix.{where} {rule}: no axis named {', '.join(unknown)}")


def parse_spec(value: str, baseline: str) -> tuple[str | None, int | None]:
    """A pairing-axis value → (method, k): the baseline value → (None, None); ``METHOD[:K]`` otherwise."""
    if value == baseline:
        return None, None
    method, _, k = value.partition(":")
    if not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", method):
        raise SweepError(f"pairing axis value {value!r}: expected METHOD[:K] (e.g. draft-model:4) or {baseline!r}")
    if k and not k.isdigit():
        raise SweepError(f"pairing axis value {value!r}: K must be a whole number")
    return method, int(k) if k else None


def placeholders(text: str) -> set[str]:
    """Field names used in a ``str.format`` template."""
    try:
        return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(text) if name}
    except ValueError as exc:
        raise SweepError(f"bad placeholder syntax in {text!r}: {exc}") from None


def cell_config(sweep: SweepFile, combo: dict[str, str]) -> dict[str, Any]:
    """Everything a cell's measurement depends on (what its key hashes); checks every placeholder resolves."""
    server = sweep.servers[combo["server"]]
    chosen: dict[str, str] = {}
    for axis, table in server.per_value.items():
        if axis not in combo:
            raise SweepError(f"servers.{combo['server']}.per_value: no matrix axis named {axis!r}")
        fragment = table.get(combo[axis])
        if fragment is None:
            raise SweepError(f"servers.{combo['server']}.per_value.{axis}: no entry for value {combo[axis]!r}")
        for name, text in fragment.items():
            if name in chosen:
                raise SweepError(f"servers.{combo['server']}.per_value: placeholder {name!r} set twice")
            chosen[name] = text
    _check_placeholders(sweep, combo, chosen, server.launch, server.env)
    return {
        "schema_version": sweep.schema_version,
        "server": combo["server"],
        "template": server.model_dump(mode="json", exclude={"per_value", "ledger"}),
        "axes": combo,
        "fragments": chosen,
        "vars": sweep.vars,
        "setup": sweep.setup,
        "client": sweep.client.model_dump(mode="json"),
        "pairing_mode": sweep.pairing.mode,
    }


def _check_placeholders(sweep: SweepFile, combo: dict[str, str], chosen: dict[str, str], launch: str,
                        env: dict[str, str]) -> None:
    layers = [set(RUNTIME_PLACEHOLDERS), set(combo), set(sweep.vars), set(chosen)]
    for a, b in itertools.combinations(layers, 2):
        if a & b:
            raise SweepError(f"placeholder name(s) {', '.join(sorted(a & b))} defined twice "
                             "(runtime, axis, vars, per_value)")
    known_for_vars = layers[0] | layers[1]
    for name, text in sweep.vars.items():
        _known(placeholders(text), known_for_vars, f"vars.{name}")
    known = known_for_vars | layers[2]
    for name, text in chosen.items():
        _known(placeholders(text), known, f"per_value {name}")
    known |= layers[3]
    _known(placeholders(launch), known, f"servers.{combo['server']}.launch")
    for name, text in env.items():
        _known(placeholders(text), known, f"servers.{combo['server']}.env.{name}")
    for cmd in sweep.setup:
        _known(placeholders(cmd), (layers[0] | set(sweep.vars)) - {"port", "cell"}, "setup")


def _known(used: set[str], known: set[str], where: str) -> None:
    missing = sorted(used - known)
    if missing:
        raise SweepError(f"{where}: unknown placeholder(s) {', '.join('{' + m + '}' for m in missing)}")


def build_plan(sweep: SweepFile, sweep_dir: str) -> Plan:
    """Cells, groups and client points of a sweep (validates placeholders and pairing)."""
    combos = combinations(sweep)
    axis = sweep.pairing.axis
    for value in {c[axis] for c in combos if axis in c}:
        parse_spec(value, sweep.pairing.baseline)
    names = list(combos[0])
    varying = [n for n in names if len({c[n] for c in combos}) > 1]
    group_axes = [n for n in names if n != axis]
    by_group: dict[tuple[str, ...], list[dict[str, str]]] = {}
    for combo in combos:
        by_group.setdefault(tuple(combo[n] for n in group_axes), []).append(combo)
    cells: list[Cell] = []
    groups: list[Group] = []
    for members in by_group.values():
        if axis in names:
            members.sort(key=lambda c: c[axis] != sweep.pairing.baseline)
            if members[0][axis] != sweep.pairing.baseline:
                where = ", ".join(f"{n}={members[0][n]}" for n in group_axes)
                raise SweepError(f"group {where}: no baseline cell ({axis}: {sweep.pairing.baseline}); "
                                 "every speculative cell needs one to be paired with")
        keys = [digest(cell_config(sweep, c)) for c in members]
        models = {sweep.servers[c["server"]].served_model for c in members}
        if len(models) > 1:
            raise SweepError(f"cells {', '.join(k for k in keys)} of one group serve different model names "
                             f"({', '.join(map(str, models))}); paired arms get the same requests")
        gkey = digest(sorted(keys))
        label = "-".join(slug(members[0][n]) for n in varying if n != axis) or "all"
        group_cells = []
        for combo, key in zip(members, keys, strict=True):
            method, k = parse_spec(combo[axis], sweep.pairing.baseline) if axis in names else (None, None)
            name = "-".join(slug(combo[n]) for n in varying) or "cell"
            cells.append(Cell(name=name, key=key, server=combo["server"], axes=combo, group=gkey,
                              baseline=method is None, spec_method=method, spec_k=k))
            group_cells.append(name)
        groups.append(Group(key=gkey, label=label, cells=group_cells))
    seen: set[str] = set()
    for cell in cells:
        if cell.name in seen:
            raise SweepError(f"two cells are named {cell.name!r} (axis values that slug alike)")
        seen.add(cell.name)
    return Plan(sweep=sweep, sweep_dir=sweep_dir, cells=cells, groups=groups, points=client_points(sweep.client))


__all__ = [
    "Cell",
    "ClientPoint",
    "Group",
    "Plan",
    "build_plan",
    "cell_config",
    "client_points",
    "combinations",
    "digest",
    "parse_spec",
    "placeholders",
    "slug",
]
