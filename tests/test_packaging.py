"""The package metadata builds with the setuptools it names, now and after that backend's announced removals."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.licenses import canonicalize_license_expression

ROOT = Path(__file__).resolve().parents[1]


def _pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_license_is_an_spdx_expression_read_by_the_backend_it_requires() -> None:
    """A ``license = {text = …}`` table makes setuptools warn on every install that builds from it stop being
    supported on 2027-02-18 (its BuildBackendWarning); the SPDX string form needs setuptools 77 or newer."""
    data = _pyproject()
    project = data["project"]
    assert isinstance(project, dict)
    license_ = project["license"]
    assert isinstance(license_, str), f"project.license must be an SPDX expression string, not {license_!r}"
    assert canonicalize_license_expression(license_) == license_
    requires = data["build-system"]["requires"]  # type: ignore[index]
    backend = [r for r in requires if re.match(r"setuptools\b", r)]
    assert len(backend) == 1, requires
    found = re.fullmatch(r"setuptools>=(\d+)(\.\d+)*", backend[0].replace(" ", ""))
    assert found is not None and int(found.group(1)) >= 77, backend[0]
