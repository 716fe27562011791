"""benchledger: an evidence ledger, harness and physics model for LLM inference speed.

Public surface (everything else is internal and may change):

- ``Ledger``: load, query and save the records of a ledger folder.
- ``build_index``: build the DuckDB index of a ledger.
- ``run_audit``: run every audit check and return an ``AuditReport``.
"""

from benchledger.errors import BenchledgerError, RecordError

__version__ = "0.1.0"

__all__ = ["BenchledgerError", "RecordError", "__version__"]
