"""Generate the committed JSON Schema files (``schemas/<kind>.schema.json``) from the pydantic models.

Also ``schemas/sweep.schema.json``, the sweep file (``benchledger.sweep.spec.SweepFile``).

Run ``python -m benchledger.schema_export`` after changing ``benchledger.schema``; a test fails when stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from benchledger.schema import RECORD_TYPES, SCHEMA_VERSION

SCHEMAS_DIR = Path(__file__).resolve().parents[2] / "schemas"


def render_schemas() -> dict[str, str]:
    """File name → JSON text of every record kind's schema (deterministic)."""
    out: dict[str, str] = {}
    for kind, model in RECORD_TYPES.items():
        schema = model.model_json_schema(mode="validation")
        schema["$id"] = f"https://benchledger.dev/schemas/v{SCHEMA_VERSION}/{kind}.schema.json"
        schema["properties"].pop("body", None)
        schema["description"] = (schema.get("description") or "") + (
            "\n\nYAML front matter of a ledger file; the Markdown after the front matter is the record's body.")
        out[f"{kind}.schema.json"] = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    out["sweep.schema.json"] = _sweep_schema()
    return out


def _sweep_schema() -> str:
    from benchledger.sweep.spec import SWEEP_SCHEMA_VERSION, SweepFile

    schema = SweepFile.model_json_schema(mode="validation")
    schema["$id"] = f"https://benchledger.dev/schemas/sweep/v{SWEEP_SCHEMA_VERSION}/sweep.schema.json"
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schemas(directory: Path = SCHEMAS_DIR) -> list[Path]:
    """Write every schema file; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in render_schemas().items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for written_path in write_schemas():
        sys.stdout.write(f"wrote {written_path}\n")
