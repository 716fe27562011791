"""``benchledger site build`` / ``site serve``: the static ledger site."""

from __future__ import annotations

import tempfile
from pathlib import Path

import typer

from benchledger.cli.options import LedgerOption, console

OUT_OPTION = typer.Option(..., "--out", "-o", file_okay=False,
                          help="Output folder (created; an earlier site there is replaced).")
SERVE_OUT_OPTION = typer.Option(None, "--out", "-o", file_okay=False,
                                help="Build into this folder (default: a temporary folder).")
PORT_OPTION = typer.Option(8765, "--port", "-p", min=0, max=65535,
                           help="Port on 127.0.0.1 (0 = any free port; the default is one no engine uses).")


def register(app: typer.Typer) -> None:
    site_app = typer.Typer(help="Build or preview the static ledger site.", no_args_is_help=True)
    site_app.command("build")(build_cmd)
    site_app.command("serve")(serve_cmd)
    app.add_typer(site_app, name="site")


def build_cmd(
    out: Path = OUT_OPTION,
    ledger_dir: Path | None = LedgerOption,
) -> None:
    """Build the static site of a ledger (deterministic: the same ledger gives the same bytes)."""
    from benchledger.site import build_site

    report = build_site(ledger_dir, out)
    console().print(
        f"built {report.pages} pages, {report.plots} plots, {report.files} files from {report.records} records "
        f"({report.benchmarks} experiments) into {report.out}"
    )
    if report.load_errors:
        console(stderr=True).print(f"warning: {report.load_errors} record files did not load (see `benchledger audit`)")


def serve_cmd(
    port: int = PORT_OPTION,
    out: Path | None = SERVE_OUT_OPTION,
    ledger_dir: Path | None = LedgerOption,
) -> None:
    """Build the site and serve it on http://127.0.0.1:PORT/ until Ctrl-C."""
    import errno

    from benchledger.errors import BenchledgerError
    from benchledger.site import build_site
    from benchledger.site.serve import make_server

    with tempfile.TemporaryDirectory(prefix="benchledger-site-") as tmp:
        target = out or Path(tmp) / "site"
        try:  # bind first: a busy port is said at once, before the build
            server = make_server(target, port)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise BenchledgerError(f"port {port} on 127.0.0.1 is in use; pass --port N (0 = any free port)") from None
            raise BenchledgerError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
        try:
            report = build_site(ledger_dir, target)
            console().print(f"serving {report.out} on http://127.0.0.1:{server.server_port}/ (Ctrl-C stops)")
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()


__all__ = ["register"]
