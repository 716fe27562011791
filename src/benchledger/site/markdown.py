"""Markdown → HTML for record bodies and source excerpts, with raw HTML escaped.

Record bodies and stored excerpts carry text from strangers, so raw HTML is never passed through
(markdown-it-py with ``html`` disabled renders ``<script>`` as text), link targets go through markdown-it's
``validateLink`` (no ``javascript:``/``data:`` URLs), and images are rendered as plain links: the site must not
load anything from the network, and a remote ``<img>`` would.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markupsafe import Markup, escape


def _render_image(
    self: Any, tokens: Sequence[Any], idx: int, options: Any, env: Any
) -> str:
    """An image becomes a link to it, labelled with its alt text: nothing is fetched when the page loads."""
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = "".join(str(child.content) for child in (token.children or [])) or src
    return f'<a class="image-link" href="{escape(src)}">[image: {escape(alt)}]</a>'


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.enable("strikethrough")
    md.add_render_rule("image", _render_image)
    return md


def render_markdown(text: str) -> Markup:
    """Render Markdown to safe HTML; raw HTML in the input comes out as escaped text."""
    if not text.strip():
        return Markup("")
    return Markup(_parser().render(text))


__all__ = ["render_markdown"]
