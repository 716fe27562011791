"""The committed JSON Schema files are generated from the pydantic models and must not be stale."""

from __future__ import annotations

from benchledger.schema_export import SCHEMAS_DIR, render_schemas


def test_schemas_are_fresh() -> None:
    expected = render_schemas()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in SCHEMAS_DIR.glob("*.schema.json")}
    stale = sorted(n for n in expected if on_disk.get(n) != expected[n])
    assert not stale, f"stale schemas {stale}: run `python -m benchledger.schema_export`"
    assert set(on_disk) == set(expected)
