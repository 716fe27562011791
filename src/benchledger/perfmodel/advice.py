"""``advise`` over a ledger: the scenarios of every weight format, the acceptance for each k (the caller's, else
the ledger's measured arms, else a stated default), the calibration, and the measured arms next to each option."""

from __future__ import annotations

from dataclasses import dataclass, field

from benchledger.ledger.store import Ledger
from benchledger.perfmodel.acceptance import AcceptanceChoice, choose_acceptance
from benchledger.perfmodel.advise import FORMAT_CAVEAT, Option, advise, target_verdict
from benchledger.perfmodel.errors import MissingInputError
from benchledger.perfmodel.inputs import params_for, scenario_for, snapshots_per_position, with_verify_kernel
from benchledger.perfmodel.nearest import NearArm, nearest_arms
from benchledger.perfmodel.predict import Scenario
from benchledger.schema import Format

ADVISE_FORMATS = ("bf16", "fp8-e4m3", "int4", "nvfp4", "mxfp4")
DEVICE_COUNTS = (1, 2, 4, 8, 16)


@dataclass(frozen=True)
class AdviceRequest:
    model: str
    hardware: str
    context: float
    """Prompt length, tokens."""
    output_tokens: int
    concurrency: int = 1
    devices: int = 1
    target_tok_s: float | None = None
    engine: str | None = None
    kv: str | None = None
    method: str = "mtp"
    k_max: int = 4
    rates: tuple[float, ...] = ()
    acceptance_length: float | None = None
    temperature: float | None = None
    verify_kernel: str | None = None
    """``exact``, ``prefill`` or a factor φ (``inputs.with_verify_kernel``); None: the calibration's."""
    decode_context: float | None = None
    """KV length during decode, tokens (``predict --context``); None: ``context + output_tokens / 2``."""


@dataclass(frozen=True)
class Advice:
    options: list[Option]
    verdict: str | None
    acceptance: dict[int, AcceptanceChoice]
    formats_skipped: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"options": [o.to_json() for o in self.options], "target": self.verdict,
                "acceptance": {str(k): c.to_json() for k, c in self.acceptance.items()},
                "format_note": FORMAT_CAVEAT, "formats_skipped": self.formats_skipped}


def advise_ledger(ledger: Ledger, req: AdviceRequest) -> Advice:
    """Rank the options of ``req`` (see the module docstring); raises ``MissingInputError`` for a bad model/part."""
    decode_context = req.decode_context if req.decode_context is not None else req.context + req.output_tokens / 2.0
    known = {f.id for f in ledger.typed("format", Format) if "weights" in f.applies_to}
    formats: list[Scenario] = []
    skipped: list[str] = []
    for w in (w for w in ADVISE_FORMATS if w in known):
        try:
            formats.append(scenario_for(ledger, model=req.model, hardware=req.hardware, weights=w,
                                        context=decode_context, concurrency=req.concurrency, kv=req.kv,
                                        engine=req.engine))
        except MissingInputError as exc:
            if exc.record != w:
                raise
            skipped.append(f"{w}: {exc.reason}")
    if not formats:
        raise MissingInputError("formats", "id", f"none of the weight formats {ADVISE_FORMATS} is in the ledger")
    choices: dict[int, AcceptanceChoice] = {}
    for k in range(1, req.k_max + 1):
        choice = choose_acceptance(ledger, model=req.model, method=req.method, k=k, context=decode_context,
                                   temperature=req.temperature, rates=req.rates, given_al=req.acceptance_length,
                                   given_k=req.k_max)
        if choice is not None:
            choices[k] = choice
    params = with_verify_kernel(params_for(ledger, req.hardware, req.engine), req.verify_kernel)

    def near(sc: Scenario) -> list[NearArm]:
        spec = None if sc.spec is None else (sc.spec.method, sc.spec.k)
        return nearest_arms(ledger, model=req.model, accelerator=req.hardware, devices=sc.devices,
                            weights=sc.weights.id, spec=spec, context=req.context, concurrency=req.concurrency)

    options = advise(formats[0], params_for=lambda _sc: params, formats=formats,
                     device_counts=[d for d in DEVICE_COUNTS if d <= req.devices], ks=sorted(choices),
                     acceptance=choices.__getitem__, method=req.method, target_tok_s=req.target_tok_s,
                     state_snapshots=snapshots_per_position(req.engine), nearest=near)
    return Advice(options, target_verdict(options, req.target_tok_s), choices, skipped)


__all__ = ["ADVISE_FORMATS", "Advice", "AdviceRequest", "advise_ledger"]
