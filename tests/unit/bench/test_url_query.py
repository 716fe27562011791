"""A server URL with a query string (``…/v1?api-version=…``): ``/v1`` is stripped and every call keeps the query
after its own path (health, version, metrics, tokenize), on real sockets."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from benchledger.bench.auxhttp import AuxHTTP
from benchledger.bench.client import url_with_path
from benchledger.bench.launch import engine_info, wait_healthy
from benchledger.bench.run import ArmSpec, normalise_url
from benchledger.bench.workload import _Tokenizer


@pytest.mark.parametrize(("url", "root"), [
    ("http://h:8000/v1?api-version=2024-06", "http://h:8000?api-version=2024-06"),
    ("http://h:8000/v1/?k=v&x=1", "http://h:8000?k=v&x=1"),
    ("https://h/base/v1?k=v", "https://h/base?k=v"),
    ("http://h:8000/v1/", "http://h:8000"),
    ("http://h:8000/", "http://h:8000"),
    ("http://h/base/v1", "http://h/base"),
    ("http://[::1]:8000/v1", "http://[::1]:8000"),
])
def test_normalise_url_strips_v1_and_keeps_the_query(url: str, root: str) -> None:
    assert normalise_url(url) == root


def test_paths_go_before_the_query() -> None:
    assert url_with_path("http://h:8000?k=v", "/metrics") == "http://h:8000/metrics?k=v"
    assert url_with_path("http://h/base/?k=v", "/tokenize") == "http://h/base/tokenize?k=v"
    assert ArmSpec("a", "http://h:8000?k=v").metrics == "http://h:8000/metrics?k=v"


@pytest.fixture
def recording_server() -> Iterator[tuple[str, list[str]]]:
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            seen.append(self.path)
            if self.path.startswith("/tokenize?"):
                body = json.dumps({"tokens": list(range(len(self.rfile.read(int(self.headers["Content-Length"])))))})
            elif self.path.startswith(("/version?", "/health?")):
                body = json.dumps({"version": "9.9"})
            else:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        do_GET = do_POST = _answer

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1?api-version=7", seen
    finally:
        server.shutdown()
        server.server_close()


def test_every_auxiliary_call_keeps_the_query_after_its_path(recording_server: tuple[str, list[str]]) -> None:
    url, seen = recording_server
    root = normalise_url(url)
    http = AuxHTTP(deadline=5.0)

    async def main() -> tuple[float, dict[str, object], list[int]]:
        waited = await wait_healthy(root, timeout=5.0, http=http)
        info = await engine_info(root, http)
        ids = await _Tokenizer(root, None, http).tokenize("a b c")
        return waited, info, ids

    waited, info, ids = asyncio.run(main())
    assert waited >= 0 and info["version"] == "9.9" and ids
    assert "/health?api-version=7" in seen and "/version?api-version=7" in seen
    assert any(p == "/tokenize?api-version=7" for p in seen)
