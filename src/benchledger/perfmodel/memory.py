"""Whether a configuration fits in device memory: weights + KV of every sequence + recurrent state (+ draft).

``need = P_total·b_w (+ draft weights) + B·(KV(L) + S_state)`` against ``D · M · MEMORY_HEADROOM``: engines
keep some memory for activations and their own buffers, so a config that needs every byte does not run.
Unknown device memory: the check cannot be made and says so (it is not a pass in disguise).
"""

from __future__ import annotations

from dataclasses import dataclass

from benchledger.perfmodel.predict import Scenario

MEMORY_HEADROOM = 0.9
"""Share of device memory the model's weights, KV and state may use."""


@dataclass(frozen=True)
class FitCheck:
    """The memory a scenario needs, by part, against what its devices offer (bytes)."""

    weights: float
    kv: float
    state: float
    draft: float
    have: float | None
    """``D · M · MEMORY_HEADROOM``; None when device memory is unknown."""

    @property
    def need(self) -> float:
        return self.weights + self.kv + self.state + self.draft

    @property
    def ok(self) -> bool:
        return self.have is None or self.need <= self.have

    def describe(self) -> str:
        parts = (f"weights {self.weights / 1e9:.1f} GB + KV {self.kv / 1e9:.1f} GB + state {self.state / 1e9:.1f} GB"
                 + (f" + draft {self.draft / 1e9:.1f} GB" if self.draft else ""))
        if self.have is None:
            return f"needs {self.need / 1e9:.1f} GB ({parts}); device memory unknown: fit not checked"
        return (f"needs {self.need / 1e9:.1f} GB ({parts}) of {self.have / 1e9:.1f} GB "
                f"({MEMORY_HEADROOM:.0%} of the devices' memory)")


def fit_check(sc: Scenario) -> FitCheck:
    """Memory needed by ``sc`` (all sequences at ``sc.context`` tokens) against its devices' memory."""
    m = sc.model
    draft = 0.0
    if sc.spec is not None and sc.spec.draft_model is not None:
        fmt = sc.spec.draft_format or sc.weights
        draft = sc.spec.draft_model.params_total * fmt.bytes_per_param
    have = None if sc.hardware.memory is None else sc.hardware.memory * sc.devices * MEMORY_HEADROOM
    return FitCheck(
        weights=m.params_total * sc.weights.bytes_per_param,
        kv=sc.concurrency * m.kv_bytes_per_sequence(sc.context, sc.kv.bytes_per_param),
        state=sc.concurrency * m.recurrent_state_bytes, draft=draft, have=have,
    )


__all__ = ["MEMORY_HEADROOM", "FitCheck", "fit_check"]
