"""Extra ``#SBATCH`` lines and the Slurm job liveness answer without a cluster."""

from __future__ import annotations

import pytest

from benchledger.errors import SweepError
from benchledger.sweep.slurm import parse_extra


def test_extra_sbatch_lines_become_submitit_parameters() -> None:
    assert parse_extra(["--exclusive", "#SBATCH --constraint=h200", " --mem=0 "]) == {
        "exclusive": True, "constraint": "h200", "mem": "0"}


@pytest.mark.parametrize("line", ["exclusive", "-x", "--", "--two words=x"])
def test_malformed_extra_lines_are_refused(line: str) -> None:
    with pytest.raises(SweepError, match="expected --key=value or --flag"):
        parse_extra([line])
