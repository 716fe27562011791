"""CPU per streamed chunk of the HTTP/1.1 parsers the timing protocol could use: httptools (chosen) vs h11.

Feeds the same chunked SSE response (32 one-token chunks, as the fake server sends them), one chunk per read,
to each parser and reports CPU µs per chunk (``time.process_time``, best of ``--repeats``). The protocol in
``bench/client.py`` runs this parser inside ``data_received`` for every read, so its cost is client overhead at
every concurrency (``benchmarks/client_overhead.py`` measures the whole client).

    python benchmarks/http_parser_overhead.py [--responses 2000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import h11
import httptools

EVENT = (b'data: {"id": "cmpl-1", "object": "text_completion", "choices": [{"index": 0, "text": "x"}], '
         b'"usage": {"prompt_tokens": 8, "completion_tokens": 1, "total_tokens": 9}}\n\n')
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
CHUNKS = 32
PIECES = [HEAD] + [b"%x\r\n%s\r\n" % (len(EVENT), EVENT)] * CHUNKS + [b"0\r\n\r\n"]


def with_h11(responses: int) -> float:
    start = time.process_time()
    for _ in range(responses):
        conn = h11.Connection(h11.CLIENT)
        conn.send(h11.Request(method="POST", target="/v1/completions", headers=[("Host", "x"), ("Content-Length", "0")]))
        conn.send(h11.EndOfMessage())
        body = []
        for piece in PIECES:
            conn.receive_data(piece)
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA or isinstance(event, h11.EndOfMessage):
                    break
                if isinstance(event, h11.Data):
                    body.append((0.0, event.data))
    return time.process_time() - start


class _Body:
    def __init__(self) -> None:
        self.pieces: list[tuple[float, bytes]] = []

    def on_body(self, body: bytes) -> None:
        self.pieces.append((0.0, body))


def with_httptools(responses: int) -> float:
    start = time.process_time()
    for _ in range(responses):
        parser = httptools.HttpResponseParser(_Body())
        for piece in PIECES:
            parser.feed_data(piece)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--responses", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for name, run in (("httptools", with_httptools), ("h11", with_h11)):
        best = min(run(args.responses) for _ in range(args.repeats))
        print(f"{name:>9}: {best * 1e6 / (args.responses * CHUNKS):6.2f} CPU µs per chunk")


if __name__ == "__main__":
    main()
