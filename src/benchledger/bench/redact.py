"""Keep secrets out of everything a run writes: API keys, tokens, passwords, credentials in URLs.

Masks, in strings and in argv lists alike:

- by value: every literal secret handed in (the API key read from ``--api-key-env``) and the value of every
  launch flag that names a credential (``launch_secrets``: ``--api-key X``, ``--hf-token=X``, ``--auth X``,
  ``--key X``, ``-k X``, ``--password X`` …), wherever that value appears later (an engine log printing its argv
  as a Python list);
- by form: secret-looking flags (``--api-key X``, ``'--hf-token', 'X'``), environment assignments
  (``HF_TOKEN=X``), JSON/Python keys (``'api_key': 'X'``), ``Authorization: Bearer X``, URL user-info
  (``https://user:pw@host``);
- by shape: strings that look like credentials wherever they occur (``sk-…``, ``hf_…``, ``ghp_…``, AWS keys).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from typing import Any

MASK = "***"
_SECRET_WORD = r"(?:api[-_]?key|token(?!s|izer)|secret|password|passwd|auth(?!or)|credential|key(?![-_]?(?:s|frame)\b))"
_FLAG_NAME = re.compile(rf"^--?[\w-]*{_SECRET_WORD}[\w-]*$|^-k$", re.IGNORECASE)
_FLAG = re.compile(rf"(--[\w-]*{_SECRET_WORD}[\w-]*(?:=|\s+|['\"],\s*))(['\"]?)([^\s'\",\]]+)\2",
                   re.IGNORECASE)
_SHORT_K = re.compile(r"((?:^|\s|['\"])-k(?:\s+|['\"],\s*|=))(['\"]?)([^\s'\",\]]+)\2")
_ENV = re.compile(rf"\b([A-Za-z0-9_]*{_SECRET_WORD}[A-Za-z0-9_]*=)(['\"]?)([^\s'\"]+)\2", re.IGNORECASE)
_BEARER = re.compile(r"(\bBearer\s+)([^\s'\"]+)", re.IGNORECASE)
_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.-]*://)([^/\s@]+)@", re.IGNORECASE)
_JSON_KEY = re.compile(rf"(['\"][\w-]*{_SECRET_WORD}[\w-]*['\"]\s*:\s*)(['\"])([^'\"]+)\2", re.IGNORECASE)
_SHAPES = re.compile(r"\b(?:sk-[A-Za-z0-9_-]{8,}|hf_[A-Za-z0-9]{8,}|gh[pousr]_[A-Za-z0-9]{16,}|AKIA[0-9A-Z]{16})")


def launch_secrets(command: str | Iterable[str]) -> list[str]:
    """Values of credential-naming flags in a launch command (``--hf-token X``, ``--key=X``, ``-k X``)."""
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError:
            argv = command.split()
    else:
        argv = list(command)
    found: list[str] = []
    for i, arg in enumerate(argv):
        name, eq, value = arg.partition("=")
        if not _FLAG_NAME.match(name):
            continue
        if eq:
            found.append(value)
        elif i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            found.append(argv[i + 1])
    return [v for v in found if v]


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every secret masked."""
    for secret in sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    keep = lambda m: f"{m.group(1)}{m.group(2)}{MASK}{m.group(2)}"  # noqa: E731
    text = _FLAG.sub(keep, text)
    text = _SHORT_K.sub(keep, text)
    text = _ENV.sub(keep, text)
    text = _JSON_KEY.sub(keep, text)
    text = _BEARER.sub(lambda m: f"{m.group(1)}{MASK}", text)
    text = _SHAPES.sub(MASK, text)
    return _USERINFO.sub(lambda m: f"{m.group(1)}{MASK}@", text)


def _argv_secrets(value: Any) -> list[str]:
    """Values after credential-naming flags in every all-string list (argv) inside ``value``."""
    if isinstance(value, dict):
        return [s for v in value.values() for s in _argv_secrets(v)]
    if isinstance(value, list | tuple):
        if value and all(isinstance(v, str) for v in value):
            return launch_secrets(value)
        return [s for v in value for s in _argv_secrets(v)]
    return []


def redact_value(value: Any, secrets: Iterable[str | None] = ()) -> Any:
    """Redact every string inside nested dicts / lists / tuples; a value that follows a credential-naming flag
    in an argv-like list (``["--key", "X"]``) is masked there and wherever else it appears in ``value``."""
    return _redact_all(value, [*secrets, *_argv_secrets(value)])


def _redact_all(value: Any, found: list[str | None]) -> Any:
    if isinstance(value, str):
        return redact(value, found)
    if isinstance(value, dict):
        return {k: _redact_all(v, found) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_redact_all(v, found) for v in value)
    return value


__all__ = ["MASK", "launch_secrets", "redact", "redact_value"]
