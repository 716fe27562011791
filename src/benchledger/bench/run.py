"""The run: drive every arm through warmup and interleaved rounds at each load point, write everything raw.

Layout of ``out``: one folder per arm (``out/<arm>/``) holding ``requests.jsonl`` (appended as requests finish),
``clock.json`` (the wall-clock time of the times' origin), ``summary.json``, ``metrics-before.prom`` / ``metrics-after.prom``; ``out/comparison.json``; ``out/environment.json``.
With several load points each point gets its own folder (``out/conc-4/<arm>/…``) and ``out/comparison.json``
lists them all. A stop (SIGINT, ``stop()``) lets in-flight requests end as errors with a reason, and every
summary is still written, marked ``complete: false``.

To keep the client's own delay out of the timestamps at hundreds of streams on one core: connections are reused
through a keep-alive pool per load point, a closed loop runs one worker per stream slot, finished streams are
parsed and written by one recorder, one per event-loop turn (a burst of endings never holds the loop), the GC
heap is frozen for the point and the cyclic GC paused inside each batch, and an event-loop lag monitor runs
throughout (``bench.looplag``).
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from benchledger.bench.auxhttp import DEFAULT_AUX_DEADLINE_S, AuxError, AuxHTTP
from benchledger.bench.client import ConnectionPool, RawStream, stream_request, url_with_path
from benchledger.bench.eventloop import EventLoop, default_event_loop
from benchledger.bench.load import LoadPoint, Round, arrival_offsets, default_round_size, plan_rounds
from benchledger.bench.looplag import LoopLagMonitor
from benchledger.bench.outputs import RequestsWriter, write_json, write_text
from benchledger.bench.redact import redact
from benchledger.bench.response import parse_stream
from benchledger.bench.rundata import RequestRecord
from benchledger.bench.workload import ENDPOINT_PATHS, Prompt, RequestSpec

Progress = Callable[[dict[str, Any]], None]
DEFAULT_PROMPT_DEADLINE_S = 300.0
CLOCK_FILE = "clock.json"


def clock_reference(origin: float) -> dict[str, Any]:
    """What ``clock.json`` says: the wall-clock time of the perf-counter ``origin`` of every time in the run.

    ``time.time()`` is read between two ``perf_counter`` reads; the tightest of a few tries is kept, and its
    bracket width is written as the pairing's uncertainty.
    """
    best: tuple[float, float, float] | None = None
    for _ in range(5):
        p0, wall, p1 = time.perf_counter(), time.time(), time.perf_counter()
        if best is None or p1 - p0 < best[2]:
            best = (wall - ((p0 + p1) / 2 - origin), (p0 + p1) / 2, p1 - p0)
    assert best is not None
    return {
        "perf_counter_origin_s": origin,
        "unix_time_at_origin": best[0],
        "pairing_uncertainty_s": best[2],
        "clock": "time.perf_counter (CLOCK_MONOTONIC on Linux)",
        "definition": "every t_* and chunk_times value in requests.jsonl is seconds since this origin; "
        "its wall-clock time is unix_time_at_origin + t (for joining with server logs)",
    }


@dataclass(frozen=True)
class ArmSpec:
    """One arm: a name, the server root URL, where its metrics are, and what speculation it runs."""

    name: str
    url: str
    metrics_url: str | None = None
    spec_method: str | None = None
    spec_k: int | None = None
    launch: str | None = None

    @property
    def speculative(self) -> bool:
        return self.spec_method is not None

    @property
    def metrics(self) -> str:
        return self.metrics_url or url_with_path(self.url, "/metrics")


def normalise_url(url: str) -> str:
    """Server root: strips a trailing ``/`` and ``/v1`` from the URL's path; a query string is kept."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    return urlunsplit(parts._replace(path=path[: -len("/v1")] if path.endswith("/v1") else path))


@dataclass
class RunConfig:
    """Everything a run needs (built by the CLI or the demo)."""

    arms: list[ArmSpec]
    request: RequestSpec
    points: list[LoadPoint]
    prompts: list[Prompt]
    num_prompts: int
    out: Path
    max_seconds: float | None = None
    warmup: int = 2
    timeout: float = 120.0
    round_size: int | None = None
    round_size_per_concurrency: int | None = None
    seed: int = 0
    slos_ms: dict[str, float] = field(default_factory=dict)
    api_key: str | None = None
    synthetic: bool = True
    prompt_builder: Callable[[str, AuxHTTP], Awaitable[list[Prompt]]] | None = None
    """Builds ``prompts`` from the first arm's URL once engines are up (e.g. exact lengths via /tokenize)."""
    aux_deadline: float = DEFAULT_AUX_DEADLINE_S
    """Total deadline (s) of each auxiliary call: tokenize, metrics scrape, health, version."""
    prompt_deadline: float = DEFAULT_PROMPT_DEADLINE_S
    """Total deadline (s) of building all prompts (``prompt_builder``: every /tokenize call together)."""
    test_request: bool = False
    """Send one request to every arm before the run and stop with the server's reason when it fails."""
    event_loop: EventLoop = field(default_factory=default_event_loop)
    """The run's event loop (``bench.eventloop``): uvloop's where installed, else asyncio's."""

    def aux(self) -> AuxHTTP:
        """The auxiliary HTTP client settings of this run."""
        return AuxHTTP(deadline=self.aux_deadline, api_key=self.api_key)


class _Recorder:
    """Records finished streams one per event-loop turn, in the order they finished.

    When many streams end together (closed loop at high concurrency), parsing and writing them all in one turn
    would hold the loop for tens of milliseconds and late-stamp every chunk arriving meanwhile. One record per
    turn (a ``call_soon`` chain: no task, no queue wake-up per record) lets the loop poll the sockets in between.
    """

    def __init__(self, record: Callable[..., None]) -> None:
        self._record = record
        self._jobs: deque[tuple[Any, ...]] = deque()
        self._errors: list[Exception] = []
        self._loop = asyncio.get_running_loop()
        self.idle = asyncio.Event()
        self.idle.set()

    def submit(self, job: tuple[Any, ...]) -> None:
        self._jobs.append(job)
        if self.idle.is_set():
            self.idle.clear()
            self._loop.call_soon(self._next)

    def _next(self) -> None:
        try:
            self._record(*self._jobs.popleft())
        except Exception as exc:  # re-raised by the point once everything is recorded
            self._errors.append(exc)
        if self._jobs:
            self._loop.call_soon(self._next)
        else:
            self.idle.set()

    async def drain(self) -> None:
        """Wait until every submitted stream is recorded; re-raise the first recording error."""
        await self.idle.wait()
        if self._errors:
            raise self._errors.pop(0)


@dataclass(repr=False)
class PointResult:
    """Where one load point's outputs are and what it measured.

    Its ``repr`` is short on purpose: ``asyncio.run`` on Python 3.11 formats the main task, result included, when
    it restores the SIGINT handler; a repr of every record cost ~0.1 s CPU per 256 requests.
    """

    point: LoadPoint
    folder: Path
    records: dict[str, list[RequestRecord]]
    complete_rounds: dict[str, set[int]]
    stopped_by: str
    scrapes: dict[str, tuple[str | None, str | None]]
    loop_lag: list[tuple[float, float]] = field(default_factory=list)
    """Event-loop lag samples ``(t, lag)`` in seconds over the whole point (``bench.looplag``)."""
    error: str | None = None
    """Why the point ended early on a harness error (``stopped_by: "error"``); what it measured is kept."""

    def __repr__(self) -> str:
        counts = {arm: len(recs) for arm, recs in self.records.items()}
        return f"PointResult(point={self.point.label!r}, folder={str(self.folder)!r}, records={counts})"


class Runner:
    """Runs one configuration; ``stop()`` (e.g. from a SIGINT handler) ends it early, keeping every record."""

    def __init__(self, config: RunConfig, progress: Progress | None = None) -> None:
        self.config = config
        self.progress = progress or (lambda _event: None)
        self.stopping = False
        self.origin = time.perf_counter()
        self.clock = clock_reference(self.origin)
        self._inflight: set[asyncio.Task[None]] = set()
        self._seq = 0
        self._recorder: _Recorder | None = None
        self._pool: ConnectionPool | None = None
        self._aux: set[asyncio.Task[str]] = set()
        self._bodies: dict[int, bytes] = {}

    def stop(self) -> None:
        """Stop dispatching and interrupt the requests and scrapes in flight (each request is recorded as
        interrupted, a cut scrape as missing)."""
        self.stopping = True
        for task in list(self._inflight):
            task.cancel()
        for aux in list(self._aux):
            aux.cancel()

    def point_folder(self, point: LoadPoint) -> Path:
        return self.config.out if len(self.config.points) == 1 else self.config.out / point.label

    async def _one(self, arm: ArmSpec, prompt_index: int, meta: dict[str, Any], writer: RequestsWriter,
                   sink: list[RequestRecord], stats: dict[str, Any]) -> None:
        cfg = self.config
        prompt = cfg.prompts[prompt_index % len(cfg.prompts)]
        seed = None if cfg.request.seed is None else cfg.request.seed + prompt_index
        body = self._bodies.get(prompt_index)
        if body is None:  # the same body for every arm and load point: serialised once
            body = self._bodies[prompt_index] = json.dumps(cfg.request.payload(prompt, seed)).encode()
        raw = await stream_request(arm.url, ENDPOINT_PATHS[cfg.request.endpoint], body,
                                   timeout=cfg.timeout, api_key=cfg.api_key, pool=self._pool)
        job = (raw, arm, prompt_index, prompt, seed, meta, writer, sink, stats)
        if self._recorder is None:  # no recorder running (direct use of _batch): record right here
            self._record(*job)
        else:
            self._recorder.submit(job)

    def _record(self, raw: RawStream, arm: ArmSpec, prompt_index: int, prompt: Prompt, seed: int | None,
                meta: dict[str, Any], writer: RequestsWriter, sink: list[RequestRecord],
                stats: dict[str, Any]) -> None:
        """Parse one finished stream, append it to ``requests.jsonl`` and the sink, report progress."""
        self._seq += 1
        where = {"phase": meta["phase"], "round": meta["round"], "point": meta["point"], "arm": arm.name,
                 "prompt_index": prompt_index, "seq": self._seq, "request_seed": seed,
                 "prompt_input_tokens": prompt.input_tokens}
        try:
            rec = parse_stream(raw, self.origin, **where)
        except Exception as exc:  # one unparseable response costs only itself, never the run
            rec = RequestRecord(t_start=raw.t_start - self.origin, http_status=raw.status,
                                error=f"response could not be parsed: {type(exc).__name__}: {exc}", **where)
        if rec.error is not None:  # error bodies may echo the API key back
            rec.error = redact(rec.error, [self.config.api_key])
        writer.write_line(rec.model_dump_json())  # pydantic's encoder: ~4× faster than dict + json, NaN → null
        sink.append(rec)
        stats["done"] += 1
        stats["errors"] += 0 if rec.ok else 1
        stats["tokens"] += rec.output_tokens if rec.ok else 0
        self.progress({"type": "request", "arm": arm.name, **stats})

    async def _drain(self) -> None:
        if self._recorder is not None:
            await self._recorder.drain()

    async def _batch(self, arm: ArmSpec, point: LoadPoint, indices: list[int], meta: dict[str, Any],
                     writer: RequestsWriter, sink: list[RequestRecord], deadline: float | None,
                     stats: dict[str, Any]) -> bool:
        """Serve ``indices`` on ``arm`` under ``point``'s load; False when cut short by a stop or deadline.

        The cyclic GC is off while the batch runs (no collection pauses inside timed streams) and collects once
        the batch is over, when nothing of this arm is in flight.
        """
        enabled = gc.isenabled()
        gc.disable()
        try:
            return await self._serve(arm, point, indices, meta, writer, sink, deadline, stats)
        finally:
            if enabled:
                gc.enable()
                gc.collect()

    async def _serve(self, arm: ArmSpec, point: LoadPoint, indices: list[int], meta: dict[str, Any],
                     writer: RequestsWriter, sink: list[RequestRecord], deadline: float | None,
                     stats: dict[str, Any]) -> bool:
        cut = False
        tasks: list[asyncio.Task[None]] = []

        def spawn(coro: Coroutine[Any, Any, None]) -> None:
            task = asyncio.ensure_future(coro)
            self._inflight.add(task)
            task.add_done_callback(self._inflight.discard)
            tasks.append(task)

        if point.concurrency:
            # Closed loop: ``concurrency`` workers share the prompt order; each sends its next request as soon as
            # its last one ended (as a semaphore over one task per request would, without a task and a wake-up
            # per queued request).
            queue = iter(indices)

            async def worker() -> None:
                for i in queue:
                    if self.stopping or (deadline is not None and time.perf_counter() >= deadline):
                        return
                    await self._one(arm, i, meta, writer, sink, stats)

            for _ in range(min(point.concurrency, len(indices))):
                spawn(worker())
        else:
            offsets = (arrival_offsets(len(indices), point.rate, point.arrival,
                                       self.config.seed * 7919 + meta["round"])
                       if point.rate else [0.0] * len(indices))
            start = time.perf_counter()
            for i, offset in zip(indices, offsets, strict=True):
                delay = start + offset - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                if self.stopping or (deadline is not None and time.perf_counter() >= deadline):
                    cut = True
                    break
                spawn(self._one(arm, i, meta, writer, sink, stats))
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._drain()
        done = sum(1 for r in sink if r.round == meta.get("round") and r.phase == meta["phase"])
        return not cut and not self.stopping and done >= len(indices)

    async def _scrape(self, arm: ArmSpec) -> str | None:
        """The arm's /metrics text under the aux deadline; None when unavailable, cut by a stop, or stopping."""
        if self.stopping:
            return None
        task = asyncio.ensure_future(self.config.aux().get_ok_text(arm.metrics))
        self._aux.add(task)
        try:
            return await task
        except AuxError:
            return None
        except asyncio.CancelledError:
            if task.cancelled() and self.stopping:
                return None
            raise
        finally:
            self._aux.discard(task)

    async def run_point(self, point: LoadPoint) -> PointResult:
        cfg = self.config
        folder = self.point_folder(point)
        writers = {a.name: RequestsWriter(folder / a.name) for a in cfg.arms}
        for a in cfg.arms:
            write_json(folder / a.name / CLOCK_FILE, self.clock)
        records: dict[str, list[RequestRecord]] = {a.name: [] for a in cfg.arms}
        warm: dict[str, list[RequestRecord]] = {a.name: [] for a in cfg.arms}
        complete: dict[str, set[int]] = {a.name: set() for a in cfg.arms}
        stats = {a.name: {"done": 0, "errors": 0, "tokens": 0, "point": point.label,
                          "total": cfg.num_prompts} for a in cfg.arms}
        scrapes: dict[str, tuple[str | None, str | None]] = {}
        stopped_by = "num_prompts"
        lag = LoopLagMonitor(self.origin)
        lag.start()
        self._recorder = recorder = _Recorder(self._record)
        self._pool = ConnectionPool()
        # What exists now (config, prompts, loaded modules) is never scanned during the point, as in vLLM bench
        # serve; without a full collection first (~30 ms of CPU over benchledger's heap, a tenth of a c=64
        # point's client CPU): garbage that exists now is kept until the point ends, then collected.
        gc.freeze()
        error: str | None = None
        try:
            warm_idx = [cfg.num_prompts + i for i in range(cfg.warmup)]
            for arm in cfg.arms:
                if warm_idx and not self.stopping:
                    await self._batch(arm, point, warm_idx, {"phase": "warmup", "round": -1, "point": point.label},
                                      writers[arm.name], warm[arm.name], None, dict(stats[arm.name]))
            before = {a.name: await self._scrape(a) for a in cfg.arms}
            size = cfg.round_size or default_round_size(point, cfg.num_prompts)
            if cfg.round_size_per_concurrency and point.concurrency:
                size = cfg.round_size_per_concurrency * point.concurrency
            rounds: list[Round] = plan_rounds(cfg.num_prompts, size)
            deadline = None if cfg.max_seconds is None else time.perf_counter() + cfg.max_seconds
            self.progress({"type": "point", "point": point.label, "rounds": len(rounds)})
            for rnd in rounds:
                for arm in cfg.arms:
                    if self.stopping:
                        break
                    meta = {"phase": "measured", "round": rnd.index, "point": point.label}
                    ok = await self._batch(arm, point, list(rnd.prompts), meta, writers[arm.name],
                                           records[arm.name], deadline, stats[arm.name])
                    if ok:
                        complete[arm.name].add(rnd.index)
                if self.stopping:
                    stopped_by = "interrupted"
                    break
                if deadline is not None and time.perf_counter() >= deadline:
                    stopped_by = "max_seconds"
                    break
            after = {a.name: await self._scrape(a) for a in cfg.arms}  # none once stopping: an interrupted
            # window gives no counter-based acceptance, and a stop never waits for a scrape
            for arm in cfg.arms:
                scrapes[arm.name] = (before[arm.name], after[arm.name])
                for tag, text in (("before", before[arm.name]), ("after", after[arm.name])):
                    if text is not None:
                        write_text(folder / arm.name / f"metrics-{tag}.prom", text)
        except Exception as exc:  # a harness fault (disk full, a bug): keep what was measured, say why it ended
            error = f"{type(exc).__name__}: {exc}"
            stopped_by = "error"
        finally:
            await recorder.idle.wait()
            self._recorder = None
            self._pool.close()
            self._pool = None
            gc.unfreeze()
            await lag.stop()
            for w in writers.values():
                w.close()
        if self.stopping:
            stopped_by = "interrupted"
        for name, warm_records in warm.items():
            records[name] = warm_records + records[name]
        return PointResult(point, folder, records, complete, stopped_by, scrapes, lag.samples, error)

    async def run(self) -> list[PointResult]:
        """All load points in order; returns what each measured (also written under ``out``)."""
        results = []
        for point in self.config.points:
            if self.stopping:
                break
            results.append(await self.run_point(point))
            if results[-1].error is not None:
                break
        return results


__all__ = ["CLOCK_FILE", "DEFAULT_PROMPT_DEADLINE_S", "ArmSpec", "PointResult", "RunConfig", "Runner", "clock_reference", "normalise_url"]
