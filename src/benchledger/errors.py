"""The benchledger exception tree.

    BenchledgerError                 base of every error we raise on purpose
     ├── RecordError                 a record file is malformed: path, line, field, what was expected
     ├── LedgerError                 a ledger folder is unusable (missing, wrong layout, unknown id)
     ├── ImportFormatError           a foreign file cannot be imported (file, key, what was expected)
     ├── BenchError                  a benchmark run cannot start or continue
     │    └── BenchInterrupted       a signal (SIGINT/SIGTERM) stopped a session before it measured anything
     └── SweepError                  a sweep file is invalid or a sweep folder cannot be used as asked
          └── SweepInterrupted       a signal stopped a sweep; the group running is not committed

The CLI turns any of these into one clear line (no traceback unless ``--debug``).
"""

from __future__ import annotations

from pathlib import Path


class BenchledgerError(Exception):
    """Base class of every error benchledger raises on purpose."""


class RecordError(BenchledgerError):
    """A record file is malformed. Formats as ``path:line: field: message``."""

    def __init__(self, path: Path | str, line: int | None, field: str, message: str, *,
                 code: str = "schema.invalid") -> None:
        self.path = Path(path)
        self.line = line
        self.field = field
        self.message = message
        self.code = code
        """The audit finding code this becomes: ``schema.invalid``, or ``files.*`` for a file that cannot be read."""
        where = f"{self.path}:{line}" if line is not None else f"{self.path}"
        super().__init__(f"{where}: {field}: {message}" if field else f"{where}: {message}")


class LedgerError(BenchledgerError):
    """A ledger folder cannot be used as asked."""


class ImportFormatError(BenchledgerError):
    """A foreign benchmark file cannot be imported."""

    def __init__(self, path: Path | str, key: str, message: str) -> None:
        self.path = Path(path)
        self.key = key
        super().__init__(f"{path}: {key}: {message}" if key else f"{path}: {message}")


class BenchError(BenchledgerError):
    """A benchmark run cannot start or continue."""


class BenchInterrupted(BenchError):
    """A signal stopped a session before its run started; the CLI exits ``exit_code``."""

    exit_code = 130


class SweepError(BenchledgerError):
    """A sweep file is invalid, or a sweep folder cannot be used as asked."""


class SweepInterrupted(SweepError):
    """A signal (SIGINT/SIGTERM) stopped a sweep; the group running is not committed (the CLI exits 130)."""
