"""A small fake OpenAI-compatible streaming server on a real socket, with exactly known timings.

Run in-process (``FakeServer`` in a background thread) or as its own process
(``python tests/fakes/openai_server.py --port 0 --ready-file F``), so tests can kill it mid-run.

Each ``/v1/completions`` or ``/v1/chat/completions`` request streams ``max_tokens`` tokens: the first chunk
``ttft`` seconds after the request is read, then one chunk per ``step`` seconds. With ``k > 0`` it imitates a
speculative engine: step *i* accepts ``accept_pattern[i % len]`` draft tokens, so its chunk carries 1 + that
many tokens, and vLLM-named Prometheus counters move exactly so. Every chunk carries cumulative ``usage``
(``continuous_usage_stats``). The truth — when the request was read and when each chunk was written
(``time.perf_counter``, the same monotonic clock as the client on Linux) — is appended to ``truth_file``.

Per-request faults via the body key ``fake_fault``: ``http_429``, ``http_500``, ``invalid_json`` (a chunk that
is not JSON), ``malformed_sse`` (a line without a field, then a data line with broken JSON), ``stall`` (stops
sending after two chunks and holds the connection), ``drop`` (closes the connection mid-stream).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class FakeConfig:
    """Timing and speculation of the fake engine."""

    ttft: float = 0.02
    step: float = 0.005
    k: int = 0
    accept_pattern: list[int] = field(default_factory=lambda: [0])
    truth_file: Path | None = None
    version: str = "fake-0.1"


class Counters:
    """vLLM-style speculative-decoding counters."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.drafts = 0
        self.draft_tokens = 0
        self.accepted = 0
        self.per_pos = [0] * k
        self.generated = 0
        self.requests = 0

    def render(self) -> str:
        lines = []
        for name, value in (
            ("vllm:generation_tokens_total", self.generated),
            ("vllm:request_success_total", self.requests),
        ):
            lines += [f"# TYPE {name[:-6]} counter", f'{name}{{model_name="fake"}} {float(value)}']
        if self.k:
            for name, value in (
                ("vllm:spec_decode_num_drafts_total", self.drafts),
                ("vllm:spec_decode_num_draft_tokens_total", self.draft_tokens),
                ("vllm:spec_decode_num_accepted_tokens_total", self.accepted),
            ):
                lines += [f"# TYPE {name[:-6]} counter", f'{name}{{engine="0",model_name="fake"}} {float(value)}']
            name = "vllm:spec_decode_num_accepted_tokens_per_pos_total"
            lines.append(f"# TYPE {name[:-6]} counter")
            for i, v in enumerate(self.per_pos):
                lines.append(f'{name}{{engine="0",model_name="fake",position="{i}"}} {float(v)}')
        return "\n".join(lines) + "\n"


def _chunk(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")


class FakeOpenAI:
    """The request handler (one instance per server)."""

    def __init__(self, config: FakeConfig) -> None:
        self.config = config
        self.counters = Counters(config.k)
        self.seq = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            t_read = time.perf_counter()
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            length = 0
            for line in lines[1:]:
                if line.lower().startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            body = await reader.readexactly(length) if length else b""
            t_read = time.perf_counter()
            if method == "GET":
                await self._get(path, writer)
            elif path in ("/v1/completions", "/v1/chat/completions"):
                await self._stream(json.loads(body or b"{}"), path, writer, t_read)
            else:
                self._plain(writer, 404, b'{"error": "not found"}')
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    def _plain(self, writer: asyncio.StreamWriter, status: int, body: bytes, ctype: str = "application/json") -> None:
        writer.write(f"HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
                     f"Connection: close\r\n\r\n".encode() + body)

    async def _get(self, path: str, writer: asyncio.StreamWriter) -> None:
        if path == "/health":
            self._plain(writer, 200, b"{}")
        elif path == "/metrics":
            self._plain(writer, 200, self.counters.render().encode(), "text/plain; version=0.0.4")
        elif path == "/version":
            self._plain(writer, 200, json.dumps({"version": self.config.version}).encode())
        else:
            self._plain(writer, 404, b'{"error": "not found"}')

    async def _stream(self, req: dict[str, Any], path: str, writer: asyncio.StreamWriter, t_read: float) -> None:
        cfg = self.config
        fault = req.get("fake_fault")
        if fault in ("http_429", "http_500"):
            status = 429 if fault == "http_429" else 500
            self._plain(writer, status, json.dumps({"error": {"message": f"fake {status}"}}).encode())
            return
        self.seq += 1
        rid = f"cmpl-fake-{self.seq}"
        chat = path.endswith("chat/completions")
        n = int(req.get("max_tokens", 16))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                     b"Connection: close\r\n\r\n")
        await writer.drain()
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        sent = 0
        step = 0
        chunk_times: list[float] = []
        chunk_tokens: list[int] = []
        accepted_total = 0
        while sent < n:
            due = t0 + cfg.ttft + step * cfg.step
            delay = due - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            if fault == "stall" and step == 2:
                await asyncio.sleep(3600)
            if fault == "drop" and step == 2:
                writer.transport.abort()
                return
            take = 1
            if cfg.k and step > 0:
                acc = min(cfg.accept_pattern[(step - 1) % len(cfg.accept_pattern)], cfg.k)
                take = min(1 + acc, n - sent)
                c = self.counters
                c.drafts += 1
                c.draft_tokens += cfg.k
                c.accepted += take - 1
                accepted_total += take - 1
                for i in range(take - 1):
                    c.per_pos[i] += 1
            sent += take
            self.counters.generated += take
            text = "x" * take
            choice = {"index": 0, "delta": {"content": text}} if chat else {"index": 0, "text": text}
            obj = {"id": rid, "choices": [choice], "usage": {"prompt_tokens": 8, "completion_tokens": sent,
                                                             "total_tokens": 8 + sent}}
            payload = b"data: " + json.dumps(obj).encode() + b"\n\n"
            if fault == "invalid_json" and step == 1:
                payload = b"data: {this is not json\n\n"
            if fault == "malformed_sse" and step == 1:
                payload = b"garbage line without a field\ndata: {\"choices\": [\n\n"
            _chunk(writer, payload)
            chunk_times.append(time.perf_counter())
            chunk_tokens.append(take)
            step += 1
        self.counters.requests += 1
        final = {"id": rid, "choices": [{"index": 0, "text": "", "finish_reason": "length"}],
                 "usage": {"prompt_tokens": 8, "completion_tokens": sent, "total_tokens": 8 + sent}}
        _chunk(writer, b"data: " + json.dumps(final).encode() + b"\n\ndata: [DONE]\n\n")
        _chunk(writer, b"")
        t_end = time.perf_counter()
        await writer.drain()
        if cfg.truth_file is not None:
            with cfg.truth_file.open("a") as fh:
                fh.write(json.dumps({"id": rid, "t_read": t_read, "chunk_times": chunk_times,
                                     "chunk_tokens": chunk_tokens, "t_end": t_end}) + "\n")


class FakeServer:
    """The fake server in a background thread with its own event loop; ``url`` once started."""

    def __init__(self, config: FakeConfig | None = None) -> None:
        self.config = config or FakeConfig()
        self.app = FakeOpenAI(self.config)
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None

    def __enter__(self) -> FakeServer:
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._loop = loop
            self._server = loop.run_until_complete(asyncio.start_server(self.app.handle, "127.0.0.1", 0, backlog=2048))
            port = self._server.sockets[0].getsockname()[1]
            self.url = f"http://127.0.0.1:{port}"
            ready.set()
            loop.run_forever()
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._server.close()
            loop.run_until_complete(self._server.wait_closed())
            loop.close()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ttft", type=float, default=0.02)
    parser.add_argument("--step", type=float, default=0.005)
    parser.add_argument("--k", type=int, default=0)
    parser.add_argument("--accept-pattern", default="0")
    parser.add_argument("--truth-file", type=Path, default=None)
    parser.add_argument("--ready-file", type=Path, required=True)
    args = parser.parse_args()
    cfg = FakeConfig(ttft=args.ttft, step=args.step, k=args.k,
                     accept_pattern=[int(x) for x in args.accept_pattern.split(",")], truth_file=args.truth_file)
    app = FakeOpenAI(cfg)

    async def serve() -> None:
        server = await asyncio.start_server(app.handle, "127.0.0.1", args.port, backlog=2048)
        port = server.sockets[0].getsockname()[1]
        tmp = args.ready_file.with_suffix(".tmp")
        tmp.write_text(f"http://127.0.0.1:{port}")
        tmp.replace(args.ready_file)
        async with server:
            await server.serve_forever()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
