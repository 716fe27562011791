"""Formats used as test inputs by the perfmodel tests (not ledger data)."""

from __future__ import annotations

from benchledger.perfmodel.formats import FormatSpec

BF16 = FormatSpec("bf16", 2.0)
FP8 = FormatSpec("fp8-e4m3", 1.0)
INT4 = FormatSpec("int4", 0.53)
NVFP4 = FormatSpec("nvfp4", 0.5625)


def whole_request_tok_s(sc: object, eff: object, prompt: float, output: float) -> float:
    """What a synthetic arm measures as ``output_throughput`` over whole requests of ``prompt`` in / ``output``
    out: the model's decode aggregate with each request's prefill counted (``calibrate.predicted_value``)."""
    from benchledger.perfmodel.calibrate import Observation, predicted_value
    from benchledger.perfmodel.predict import Params, Scenario, predict
    from benchledger.perfmodel.roofline import Efficiency

    assert isinstance(sc, Scenario) and isinstance(eff, Efficiency)
    whole = Observation("synthetic#arm", sc, "output_throughput", 1.0, (), (), prompt, output)
    return predicted_value(whole, predict(sc, Params(eff)), eff)
