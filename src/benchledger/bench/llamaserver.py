"""``python -m benchledger.bench.llamaserver``: run llama.cpp's embedded server (xllamacpp) as a process.

The demo and the engine tests launch engines through this command line, exactly as a user would launch
``llama-server`` with ``--launch NAME='command'``, so the harness measures a separate process (no shared GIL)
that can be killed like a real engine. Speculation: ``--draft PATH --draft-max K`` (draft-model speculation);
``--synth-rates r0,r1,…`` sets llama.cpp's synthetic per-position acceptance (deterministic per request seed).
"""

from __future__ import annotations

import argparse
import signal
import threading


def build_params(args: argparse.Namespace) -> object:
    """xllamacpp CommonParams for the parsed command line."""
    import xllamacpp as x

    p = x.CommonParams()
    p.model.path = args.model
    if args.alias:
        p.model_alias = args.alias
    p.n_parallel = args.parallel
    p.n_ctx = args.ctx * args.parallel
    p.cpuparams.n_threads = args.threads
    p.cpuparams_batch.n_threads = args.threads
    p.endpoint_metrics = True
    p.port = args.port
    p.hostnames = [args.host]
    if args.draft:
        p.speculative.draft.mparams.path = args.draft
        p.speculative.types = [x.common_speculative_type.COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE]
        p.speculative.draft.n_max = args.draft_max
        p.speculative.draft.n_min = 0
        p.speculative.draft.cpuparams.n_threads = args.threads
        p.speculative.draft.cpuparams_batch.n_threads = args.threads
        if args.synth_rates:
            p.speculative.synth_rates = [float(r) for r in args.synth_rates.split(",")]
    return p


def main(argv: list[str] | None = None) -> int:
    """Start the server and block until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(prog="python -m benchledger.bench.llamaserver", description=__doc__)
    parser.add_argument("--model", required=True)
    parser.add_argument("--alias", default=None)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--parallel", type=int, default=4, help="slots (continuous batching)")
    parser.add_argument("--ctx", type=int, default=1024, help="context per slot")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--draft", default=None, help="draft model GGUF (enables speculation)")
    parser.add_argument("--draft-max", type=int, default=4)
    parser.add_argument("--synth-rates", default=None)
    args = parser.parse_args(argv)
    try:
        import xllamacpp as x
    except ImportError:
        return 2
    server = x.Server(build_params(args))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    del server
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
