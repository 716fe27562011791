"""Keep secrets out of everything a run writes: API keys, tokens, passwords, credentials in URLs.

Masks values of secret-looking flags (``--api-key X``, ``--hf-token=X``), secret-looking environment
assignments (``HF_TOKEN=X``), ``Authorization: Bearer X``, URL user-info (``https://user:pw@host``) and every
literal secret value handed in (e.g. the API key read from ``--api-key-env``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

MASK = "***"
_SECRET_WORD = r"(?:api[-_]?key|token(?!s|izer)|secret|password|passwd)"
_FLAG = re.compile(rf"(--[\w-]*{_SECRET_WORD}[\w-]*(?:=|\s+))(['\"]?)([^\s'\"]+)\2", re.IGNORECASE)
_ENV = re.compile(rf"\b([A-Za-z0-9_]*{_SECRET_WORD}[A-Za-z0-9_]*=)(['\"]?)([^\s'\"]+)\2", re.IGNORECASE)
_BEARER = re.compile(r"(\bBearer\s+)([^\s'\"]+)", re.IGNORECASE)
_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.-]*://)([^/\s@]+)@", re.IGNORECASE)
_JSON_KEY = re.compile(rf"(['\"][\w-]*{_SECRET_WORD}[\w-]*['\"]\s*:\s*)(['\"])([^'\"]+)\2", re.IGNORECASE)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every secret masked."""
    for secret in sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    text = _FLAG.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}{m.group(2)}", text)
    text = _ENV.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}{m.group(2)}", text)
    text = _JSON_KEY.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}{m.group(2)}", text)
    text = _BEARER.sub(lambda m: f"{m.group(1)}{MASK}", text)
    return _USERINFO.sub(lambda m: f"{m.group(1)}{MASK}@", text)


def redact_value(value: Any, secrets: Iterable[str | None] = ()) -> Any:
    """Redact every string inside nested dicts / lists / tuples."""
    found = list(secrets)
    if isinstance(value, str):
        return redact(value, found)
    if isinstance(value, dict):
        return {k: redact_value(v, found) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redact_value(v, found) for v in value)
    return value


def redact_file(path: Path, secrets: Iterable[str | None] = ()) -> None:
    """Rewrite a text file (e.g. an engine log) with its secrets masked; no-op when it does not exist."""
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8", errors="replace")
    cleaned = redact(text, secrets)
    if cleaned != text:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(cleaned, encoding="utf-8")
        tmp.replace(path)


__all__ = ["MASK", "redact", "redact_file", "redact_value"]
