"""A local preview server for a built site: 127.0.0.1 only, static files only, quiet logs."""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"
DEFAULT_PORT = 8765
"""Not a port any inference engine listens on by default (vLLM, TensorRT-LLM, Triton: 8000; llama.cpp, TGI: 8080;
SGLang: 30000; Ollama: 11434; LM Studio: 1234), so a preview never collides with the server being measured."""


class _QuietHandler(SimpleHTTPRequestHandler):
    """Serves files from the site folder without logging every request to stderr."""

    def log_message(self, format: str, *args: Any) -> None:
        del format, args

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()


def make_server(site_dir: Path | str, port: int = 0) -> ThreadingHTTPServer:
    """A server for ``site_dir`` bound to 127.0.0.1 (``port=0`` picks a free port; read ``server_port``)."""
    handler = functools.partial(_QuietHandler, directory=str(Path(site_dir).resolve()))
    server = ThreadingHTTPServer((HOST, port), handler)
    server.daemon_threads = True
    return server


__all__ = ["DEFAULT_PORT", "HOST", "make_server"]
