"""A small fake OpenAI-compatible streaming server on a real socket, with exactly known timings.

Run in-process (``FakeServer`` in a background thread) or as its own process
(``python tests/fakes/openai_server.py --port 0 --ready-file F [--cpu N]``), so tests can kill it and the
client-overhead benchmark can pin it to a core of its own.

Each ``/v1/completions`` or ``/v1/chat/completions`` request streams ``max_tokens`` tokens: the first chunk
``ttft`` seconds after the request is read, then one chunk per ``step`` seconds. With ``k > 0`` it imitates a
speculative engine: step *i* accepts ``accept_pattern[i % len]`` draft tokens, so its chunk carries 1 + that
many tokens, and vLLM-named Prometheus counters move exactly so. Every chunk carries cumulative ``usage``
(``continuous_usage_stats``); the last token chunk carries ``finish_reason``, then a usage-only chunk with
``"choices": []`` and ``[DONE]`` follow, as vLLM streams them. HTTP/1.1 keep-alive is honoured (a client's ``Connection: close`` closes).

The truth — when the connection was accepted, when the request was read, when each chunk was handed to the
socket (stamped just before the write, so a client's stamp of that chunk is never earlier;
``time.perf_counter``, the same system-wide monotonic clock as the client on Linux), how late the server was
against its own schedule, and the client's ``x-request-id`` if sent — is appended to ``truth_file``, one JSON
line per finished stream, each line one ``write`` on an ``O_APPEND`` file.

The hot path is cheap so the server keeps up with hundreds of streams on one core: a raw asyncio protocol
(no stream reader/writer tasks), one timer callback per chunk (no coroutine per stream), chunk bytes formatted
from templates (no ``json.dumps`` per chunk).

Per-request faults via the body key ``fake_fault``: ``http_429``, ``http_500``, ``invalid_json`` (a chunk that
is not JSON), ``malformed_sse`` (a line without a field, then a data line with broken JSON), ``stall`` (stops
sending after two chunks and holds the connection), ``drop`` (closes the connection mid-stream),
``close_idle`` (a complete response, then the keep-alive connection is closed without ``Connection: close``).

Hostile-server faults (``tests/integration/test_bench_hostile.py``). Per request (``fake_fault``, or
``FakeConfig.fault`` for every request): ``delta_oops`` (``"delta": "oops"``), ``choices_int``
(``"choices": 5``), ``draft_n_abc`` (``timings.draft_n: "abc"``), ``negative_usage``
(``completion_tokens: -1000000``), ``no_choices`` (chunks without ``choices``), ``json_body`` / ``html_body``
(a 200 answer that is not an SSE stream), ``echo_key_401`` (a 401 whose body echoes the Authorization header),
``echo_key_sse`` (an SSE error chunk echoing it), ``reasoning`` (chat: ``reasoning_content`` deltas first).
Server-wide: ``tokenize`` — ``none`` (404), ``ok`` (one id per word; ``/detokenize`` inverts it), ``empty``,
``constant``, ``html``, ``strings``, ``truncate`` (at 40 tokens), ``hang``, ``slow`` (as ``ok``, each answer
``SLOW_TOKENIZE_S`` late); ``metrics`` — ``ok``, ``trickle``
(one byte a second), ``hang`` (never answers), ``garbage`` (not Prometheus), ``reset`` (counters restart from
zero after the first scrape), ``restart`` (``process_start_time_seconds`` changes between scrapes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    from tests.fakes.hostile import Vocab, hostile_chunk, metrics_body, tokenizer_answer
except ImportError:  # run as a script (``python tests/fakes/openai_server.py``): its folder is on sys.path
    from hostile import Vocab, hostile_chunk, metrics_body, tokenizer_answer  # type: ignore[no-redef]


SLOW_TOKENIZE_S = 0.05


@dataclass
class FakeConfig:
    """Timing and speculation of the fake engine."""

    ttft: float = 0.02
    step: float = 0.005
    k: int = 0
    accept_pattern: list[int] = field(default_factory=lambda: [0])
    truth_file: Path | None = None
    version: str = "fake-0.1"
    fault: str | None = None
    tokenize: str = "none"
    metrics: str = "ok"
    reasoning_tokens: int = 3


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


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


class FakeOpenAI:
    """Shared state of one server: config, counters, response ids, the truth file."""

    def __init__(self, config: FakeConfig) -> None:
        self.config = config
        self.counters = Counters(config.k)
        self.seq = 0
        self.scrapes = 0
        self.tokenize_calls = 0
        self.asked_at: dict[str, list[float]] = {}
        """Path → when each request for it was read (``time.perf_counter``)."""
        self.closed_after: dict[str, list[float]] = {}
        """Path → when each connection that asked for it was closed (``time.perf_counter``)."""
        self.vocab = Vocab()
        self._truth_fd: int | None = None
        if config.truth_file is not None:
            self._truth_fd = os.open(config.truth_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def record_truth(self, entry: dict[str, Any]) -> None:
        if self._truth_fd is not None:
            os.write(self._truth_fd, (json.dumps(entry) + "\n").encode())

    def close(self) -> None:
        if self._truth_fd is not None:
            os.close(self._truth_fd)
            self._truth_fd = None

    def protocol(self) -> Connection:
        return Connection(self)


class Connection(asyncio.Protocol):
    """One client connection: parses requests (keep-alive, one at a time) and answers them."""

    def __init__(self, app: FakeOpenAI) -> None:
        self.app = app
        self.transport: asyncio.Transport | None = None
        self.buf = b""
        self.busy = False
        self.closed = False
        self.t_accept = 0.0
        self.stream: Stream | None = None
        self.asked: set[str] = set()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.t_accept = time.perf_counter()
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if not self.busy:
            self._next_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        for path in self.asked:
            self.app.closed_after.setdefault(path, []).append(time.perf_counter())
        if self.stream is not None:
            self.stream.cancel()

    def _next_request(self) -> None:
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return
        lines = self.buf[:end].decode("latin-1").split("\r\n")
        try:
            method, path, _ = lines[0].split(" ", 2)
        except ValueError:
            self._plain(400, b'{"error": "bad request line"}', keep_alive=False)
            return
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0") or 0)
        if len(self.buf) < end + 4 + length:
            return
        body = self.buf[end + 4 : end + 4 + length]
        self.buf = self.buf[end + 4 + length :]
        t_read = time.perf_counter()
        self.asked.add(path)
        self.app.asked_at.setdefault(path, []).append(t_read)
        keep_alive = headers.get("connection", "").lower() != "close"
        self.busy = True
        if method == "GET":
            self._get(path, keep_alive)
        elif path in ("/tokenize", "/detokenize"):
            self._tokenizer(path, json.loads(body or b"{}"), keep_alive)
        elif path in ("/v1/completions", "/v1/chat/completions"):
            req = json.loads(body or b"{}")
            fault = req.get("fake_fault") or self.app.config.fault
            req["fake_fault"] = fault
            if fault in ("http_429", "http_500"):
                status = 429 if fault == "http_429" else 500
                self._plain(status, json.dumps({"error": {"message": f"fake {status}"}}).encode(), keep_alive)
                return
            if fault == "echo_key_401":
                auth = headers.get("authorization", "")
                self._plain(401, json.dumps({"error": {"message": f"invalid key in header {auth!r}"}}).encode(),
                            keep_alive)
                return
            if fault in ("json_body", "html_body"):
                answer = (b'{"id": "x", "choices": [{"text": "not streamed"}], "usage": {"completion_tokens": 2}}'
                          if fault == "json_body" else b"<!DOCTYPE html><html><body>proxy login</body></html>")
                self._plain(200, answer, keep_alive, "application/json" if fault == "json_body" else "text/html")
                return
            self.stream = Stream(self, req, path.endswith("chat/completions"), t_read,
                                 headers.get("x-request-id"), keep_alive, headers.get("authorization", ""))
            self.stream.start()
        else:
            self._plain(404, b'{"error": "not found"}', keep_alive)

    def _tokenizer(self, path: str, req: dict[str, Any], keep_alive: bool) -> None:
        app, mode = self.app, self.app.config.tokenize
        app.tokenize_calls += 1
        if mode == "none":
            self._plain(404, b'{"error": "not found"}', keep_alive)
        elif mode == "slow":  # answers as "ok" does, each after SLOW_TOKENIZE_S
            asyncio.get_running_loop().call_later(SLOW_TOKENIZE_S, self._plain, 200,
                                                  tokenizer_answer("ok", app.vocab, path, req), keep_alive)
        elif mode != "hang":  # hang: never answers; the client's deadline ends it
            self._plain(200, tokenizer_answer(mode, app.vocab, path, req), keep_alive)

    def _metrics(self, keep_alive: bool) -> None:
        app, mode = self.app, self.app.config.metrics
        app.scrapes += 1
        if mode == "hang":
            return
        if mode == "reset" and app.scrapes == 2:
            app.counters = Counters(app.config.k)  # the engine "restarted": every counter from zero
        body, ctype = metrics_body(mode, app.scrapes, app.counters.render())
        if mode != "trickle":
            self._plain(200, body, keep_alive, ctype)
            return
        assert self.transport is not None
        self.transport.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n" % len(body))
        loop = asyncio.get_running_loop()

        def drip(i: int) -> None:
            if self.transport is None or self.closed or i >= len(body):
                return
            self.transport.write(body[i : i + 1])
            loop.call_later(1.0, drip, i + 1)

        drip(0)

    def _get(self, path: str, keep_alive: bool) -> None:
        app = self.app
        if path == "/health":
            self._plain(200, b"{}", keep_alive)
        elif path == "/metrics":
            self._metrics(keep_alive)
        elif path == "/version":
            self._plain(200, json.dumps({"version": app.config.version}).encode(), keep_alive)
        else:
            self._plain(404, b'{"error": "not found"}', keep_alive)

    def _plain(self, status: int, body: bytes, keep_alive: bool, ctype: str = "application/json") -> None:
        assert self.transport is not None
        conn = "keep-alive" if keep_alive else "close"
        self.transport.write(f"HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
                             f"Connection: {conn}\r\n\r\n".encode() + body)
        self.finished(keep_alive)

    def finished(self, keep_alive: bool) -> None:
        """The current response is complete: close, or read the next request on this connection."""
        self.busy = False
        self.stream = None
        if self.transport is None or self.closed:
            return
        if keep_alive:
            self._next_request()
        else:
            self.transport.close()


class Stream:
    """One streamed completion, driven by one timer callback per chunk."""

    def __init__(self, conn: Connection, req: dict[str, Any], chat: bool, t_read: float,
                 request_id: str | None, keep_alive: bool, auth: str = "") -> None:
        app = conn.app
        app.seq += 1
        self.conn = conn
        self.app = app
        self.cfg = app.config
        self.rid = f"cmpl-fake-{app.seq}"
        self.n = int(req.get("max_tokens", 16))
        self.fault = req.get("fake_fault")
        self.t_read = t_read
        self.request_id = request_id
        self.keep_alive = keep_alive
        self.auth = auth
        self.chat = chat
        self.sent = 0
        self.step = 0
        self.chunk_times: list[float] = []
        self.chunk_tokens: list[int] = []
        self.late_max = 0.0
        self.late_sum = 0.0
        self.handle: asyncio.TimerHandle | None = None
        rid = self.rid.encode()
        if chat:
            self.prefix = b'data: {"id": "%s", "object": "chat.completion.chunk", "choices": [{"index": 0, ' \
                          b'"delta": {"content": "' % rid
            self.suffix = b'"}}], '
            self.last_suffix = b'"}, "finish_reason": "length"}], '
        else:
            self.prefix = b'data: {"id": "%s", "object": "text_completion", "choices": [{"index": 0, ' \
                          b'"text": "' % rid
            self.suffix = b'"}], '
            self.last_suffix = b'", "finish_reason": "length"}], '
        self.loop = asyncio.get_running_loop()
        self.t0 = self.loop.time()

    def start(self) -> None:
        transport = self.conn.transport
        assert transport is not None
        conn = "keep-alive" if self.keep_alive else "close"
        transport.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                        b"Connection: %s\r\n\r\n" % conn.encode())
        self.handle = self.loop.call_at(self.t0 + self.cfg.ttft, self._emit)

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _usage(self) -> bytes:
        return b'"usage": {"prompt_tokens": 8, "completion_tokens": %d, "total_tokens": %d}}' % (
            self.sent, 8 + self.sent)

    def _emit(self) -> None:
        cfg, transport = self.cfg, self.conn.transport
        if transport is None or self.conn.closed:
            return
        due = self.t0 + cfg.ttft + self.step * cfg.step
        late = self.loop.time() - due
        self.late_sum += late
        self.late_max = max(self.late_max, late)
        if self.fault == "stall" and self.step == 2:
            return  # hold the connection; the client's timeout ends it
        if self.fault == "drop" and self.step == 2:
            transport.abort()
            return
        take = 1
        if cfg.k and self.step > 0:
            c = self.app.counters
            acc = min(cfg.accept_pattern[(self.step - 1) % len(cfg.accept_pattern)], cfg.k)
            take = min(1 + acc, self.n - self.sent)
            c.drafts += 1
            c.draft_tokens += cfg.k
            c.accepted += take - 1
            for i in range(take - 1):
                c.per_pos[i] += 1
        self.sent += take
        self.app.counters.generated += take
        suffix = self.suffix if self.sent < self.n else self.last_suffix
        payload = self.prefix + b"x" * take + suffix + self._usage() + b"\n\n"
        payload = hostile_chunk(self.fault, payload, rid=self.rid, step=self.step, sent=self.sent, n=self.n,
                                take=take, chat=self.chat, auth=self.auth, reasoning_tokens=self.cfg.reasoning_tokens)
        if self.fault == "invalid_json" and self.step == 1:
            payload = b"data: {this is not json\n\n"
        if self.fault == "malformed_sse" and self.step == 1:
            payload = b'garbage line without a field\ndata: {"choices": [\n\n'
        self.chunk_times.append(time.perf_counter())  # before the write: no client can have the chunk earlier
        transport.write(_chunk(payload))
        self.chunk_tokens.append(take)
        self.step += 1
        if self.sent < self.n:
            self.handle = self.loop.call_at(self.t0 + cfg.ttft + self.step * cfg.step, self._emit)
            return
        self._finish(transport)

    def _finish(self, transport: asyncio.Transport) -> None:
        self.handle = None
        self.app.counters.requests += 1
        final = b'data: {"id": "%s", "choices": [], ' % self.rid.encode() + self._usage() + b"\n\ndata: [DONE]\n\n"
        transport.write(_chunk(final) + _chunk(b""))
        t_end = time.perf_counter()
        steps = max(len(self.chunk_times), 1)
        self.app.record_truth({
            "id": self.rid, "request_id": self.request_id, "t_accept": self.conn.t_accept, "t_read": self.t_read,
            "chunk_times": self.chunk_times, "chunk_tokens": self.chunk_tokens, "t_end": t_end,
            "late_max": self.late_max, "late_mean": self.late_sum / steps,
        })
        if self.fault == "close_idle":  # a keep-alive timeout racing the client: close without saying so
            transport.close()
        self.conn.finished(self.keep_alive)


async def serve(app: FakeOpenAI, port: int = 0, host: str = "127.0.0.1") -> asyncio.Server:
    """Start listening; the server object's first socket has the bound port."""
    loop = asyncio.get_running_loop()
    return await loop.create_server(app.protocol, host, port, backlog=4096)


class FakeServer:
    """The fake server in a background thread with its own event loop; ``url`` once started."""

    def __init__(self, config: FakeConfig | None = None) -> None:
        self.config = config or FakeConfig()
        self.app = FakeOpenAI(self.config)
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> FakeServer:
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._loop = loop
            server = loop.run_until_complete(serve(self.app))
            self.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
            ready.set()
            loop.run_forever()
            server.close()
            loop.run_until_complete(server.wait_closed())
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
        self.app.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ttft", type=float, default=0.02)
    parser.add_argument("--step", type=float, default=0.005)
    parser.add_argument("--k", type=int, default=0)
    parser.add_argument("--accept-pattern", default="0")
    parser.add_argument("--truth-file", type=Path, default=None)
    parser.add_argument("--ready-file", type=Path, required=True)
    parser.add_argument("--cpu", type=int, default=None, help="pin this process to one CPU (Linux)")
    parser.add_argument("--fault", default=None)
    parser.add_argument("--tokenize", default="none")
    parser.add_argument("--metrics", default="ok")
    parser.add_argument("--api-key", default=None, help="accepted and ignored (a launch secret for tests)")
    parser.add_argument("-k", dest="launch_k", default=None, help="accepted and ignored (a launch secret for tests)")
    parser.add_argument("--hf-token", default=None, help="accepted and ignored (a launch secret for tests)")
    parser.add_argument("--auth", default=None, help="accepted and ignored (a launch secret for tests)")
    args = parser.parse_args()
    # as engines do: a launch secret must not survive in the log (a launched engine's stderr goes to its log too);
    # stderr keeps it out of what a benchmark prints on stdout
    print("argv:", sys.argv, file=sys.stderr, flush=True)
    if args.cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    cfg = FakeConfig(ttft=args.ttft, step=args.step, k=args.k,
                     accept_pattern=[int(x) for x in args.accept_pattern.split(",")], truth_file=args.truth_file,
                     fault=args.fault, tokenize=args.tokenize, metrics=args.metrics)
    app = FakeOpenAI(cfg)

    async def run() -> None:
        server = await serve(app, args.port)
        port = server.sockets[0].getsockname()[1]
        tmp = args.ready_file.with_suffix(".tmp")
        tmp.write_text(f"http://127.0.0.1:{port}")
        tmp.replace(args.ready_file)
        async with server:
            await server.serve_forever()

    asyncio.run(run())


if __name__ == "__main__":
    main()
