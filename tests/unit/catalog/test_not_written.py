"""Which failures of a cache update are answered from memory with a warning, and which are faults to report
(catalog/cache.py: _not_written): the old code took every OS error for an unwritable cache, so a ledger file that
is a folder or a bad descriptor inside the update was answered from memory under a wrong reason."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import duckdb
import pytest

from benchledger.catalog.cache import _not_written

CACHE = Path("/ledger/.benchledger-cache")


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM])
def test_a_write_the_system_refused_is_an_unwritable_cache_wherever_it_was(code: int) -> None:
    reason = _not_written(OSError(code, os.strerror(code), "/elsewhere/file"), CACHE)
    assert reason is not None and os.strerror(code) in reason
    assert _not_written(OSError(code, os.strerror(code)), CACHE) is not None  # (a write(2) names no file)


@pytest.mark.parametrize("name", [str(CACHE), str(CACHE / "index-1.duckdb"), os.fsencode(CACHE / "CURRENT")])
def test_any_error_about_the_cache_folder_or_a_file_in_it_is_an_unwritable_cache(name: str | bytes) -> None:
    """A file where the cache folder should be (EEXIST, ENOTDIR), a folder where its file should be (EISDIR)."""
    for code in (errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
        assert _not_written(OSError(code, os.strerror(code), name), CACHE) is not None


@pytest.mark.parametrize(("code", "name"), [(errno.EBADF, None), (errno.EISDIR, "/ledger/waivers.yaml"),
                                            (errno.ENOENT, "/ledger/benchmarks/a.md"), (errno.EINVAL, None),
                                            (errno.EEXIST, "/ledger/.benchledger-cache-other")])
def test_other_os_errors_are_raised_not_taken_for_an_unwritable_cache(code: int, name: str | None) -> None:
    assert _not_written(OSError(code, os.strerror(code), name), CACHE) is None


def test_duckdb_write_failures_are_an_unwritable_cache_and_other_errors_are_not() -> None:
    assert _not_written(duckdb.IOException("could not write file"), CACHE) is not None
    assert _not_written(duckdb.CatalogException("no such table"), CACHE) is None
    assert _not_written(ValueError("x"), CACHE) is None
