"""Waivers are data: ``<ledger>/waivers.yaml`` lists (code, record, reason, date[, field]). Never code."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import yaml
from pydantic import Field, ValidationError

from benchledger.audit.finding import Finding
from benchledger.schema.provenance import StrictModel

WAIVERS_FILE = "waivers.yaml"


class Waiver(StrictModel):
    """Accept one finding code on one record (optionally one field), with a reason."""

    code: str = Field(pattern=r"^[a-z]+\.[a-z0-9-]+$")
    record: str
    field: str | None = None
    reason: str = Field(min_length=10)
    date: dt.date

    def matches(self, finding: Finding) -> bool:
        return (finding.code == self.code and finding.record == self.record
                and (self.field is None or finding.field == self.field))


def load_waivers(root: Path) -> tuple[list[Waiver], list[Finding]]:
    """Waivers of a ledger and findings about the waivers file itself."""
    path = root / WAIVERS_FILE
    if not path.exists():
        return [], []
    if not path.is_file():  # (a folder; a pipe would block the read)
        return [], [Finding("waivers.invalid", "error", WAIVERS_FILE, "", f"{path}: not a file")]
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
        return [], [Finding("waivers.invalid", "error", WAIVERS_FILE, "", f"{path}: cannot be read ({why})")]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else "?"
        return [], [Finding("waivers.invalid", "error", WAIVERS_FILE, "", f"{path}:{where}: invalid YAML")]
    if not isinstance(data, list):
        return [], [Finding("waivers.invalid", "error", WAIVERS_FILE, "", "expected a list of waivers")]
    waivers: list[Waiver] = []
    problems: list[Finding] = []
    for index, item in enumerate(data):
        try:
            waivers.append(Waiver.model_validate(item))
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            field = ".".join(str(p) for p in err["loc"])
            problems.append(Finding("waivers.invalid", "error", WAIVERS_FILE, f"{index}.{field}", err["msg"]))
    return waivers, problems


def apply_waivers(findings: list[Finding], waivers: list[Waiver]) -> list[Finding]:
    """Mark waived findings (kept, never dropped) and report waivers that matched nothing."""
    used: set[int] = set()
    out: list[Finding] = []
    for finding in findings:
        for index, waiver in enumerate(waivers):
            if waiver.matches(finding):
                used.add(index)
                finding = Finding(finding.code, finding.severity, finding.record, finding.field, finding.message,
                                  waived=True, waiver_reason=waiver.reason)
                break
        out.append(finding)
    for index, waiver in enumerate(waivers):
        if index not in used:
            out.append(Finding("waivers.unused", "warning", waiver.record, waiver.code,
                               f"waiver for {waiver.code} on {waiver.record} matches no finding; remove it"))
    return out


__all__ = ["WAIVERS_FILE", "Waiver", "apply_waivers", "load_waivers"]
