"""``python -m benchledger`` and the ``benchledger`` console script (``run``): the command line, imported with the
cyclic GC paused (``ledger/collector.py``). Importing typer and click builds tens of thousands of objects, which
the collector would otherwise scan ~30 times meanwhile: ~10 ms of every command (a warm query at 10,000 records
takes ~0.4 s, benchmarks/ledger_scale.py). The command itself runs with the collector as it was."""

from benchledger.ledger.collector import freeze_for_process, gc_paused


def run() -> None:
    with gc_paused():
        from benchledger.cli import main

        freeze_for_process()  # (or the collector would scan them all as it resumes)
    main()


if __name__ == "__main__":
    run()
