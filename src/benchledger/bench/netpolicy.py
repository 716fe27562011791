"""One network policy for all of a run's HTTP: the streaming client (``bench.client``) and every auxiliary call
(``bench.auxhttp``, httpx).

- **Proxies are ignored.** ``HTTP_PROXY`` / ``HTTPS_PROXY`` / ``ALL_PROXY`` / ``NO_PROXY`` (any case) are not
  read: every request goes straight to the server named in the URL. A proxy between the client and the server
  would be inside every timestamp (and may buffer the stream), and the scrapes, tokenize calls and health
  checks must reach the same server as the measured streams.
- **TLS** verifies against the system trust store (OpenSSL's default paths, so ``SSL_CERT_FILE`` /
  ``SSL_CERT_DIR`` are honoured), with the same ``ssl.SSLContext`` for the streaming client and httpx.
- Nothing else from the environment (``.netrc`` credentials included) is used.
"""

from __future__ import annotations

import functools
import ssl
from typing import Any


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The TLS context of every HTTPS connection a run makes (system trust store, hostname checked)."""
    return ssl.create_default_context()


def httpx_options() -> dict[str, Any]:
    """Keyword arguments that put an ``httpx`` client under this policy (no environment settings, shared TLS)."""
    return {"trust_env": False, "verify": tls_context()}


__all__ = ["httpx_options", "tls_context"]
