"""``python -m benchledger.sweep.demomodels DIR``: write the demo sweep's tiny target + draft GGUF into DIR.

The setup step of ``benchledger sweep example --demo``: idempotent (skips when both files exist), each file
renamed into place whole, so parallel tasks on a shared filesystem never see half a model.
"""

from __future__ import annotations

import sys
from pathlib import Path

from benchledger.errors import BenchledgerError
from benchledger.sweep.harness import write_demo_models


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m benchledger.sweep.demomodels DIR\n")
        return 2
    try:
        for path in write_demo_models(Path(args[0])):
            sys.stdout.write(f"{path}\n")
    except (BenchledgerError, ImportError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
