"""The ledger on disk: one record per file, canonical YAML front matter + Markdown body, and its DuckDB index."""

from benchledger.ledger.io import dump_record, load_record, parse_record, write_record
from benchledger.ledger.paths import default_ledger_dir, record_path
from benchledger.ledger.store import Ledger

__all__ = ["Ledger", "default_ledger_dir", "dump_record", "load_record", "parse_record", "record_path", "write_record"]
