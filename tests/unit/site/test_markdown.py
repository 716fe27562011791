"""Markdown bodies: raw HTML is escaped, unsafe links are not rendered, images never load."""

from __future__ import annotations

from benchledger.site.markdown import render_markdown


def test_raw_html_is_text() -> None:
    html = render_markdown("Hello <script>alert(1)</script>\n\n<div onclick='x()'>hi</div>\n")
    assert "<script>" not in html and "<div" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;div onclick=" in html


def test_unsafe_links_are_not_links_and_images_are_links() -> None:
    html = render_markdown("[x](javascript:alert(1)) ![chart <b>](https://example.org/c.png) [ok](https://e.org)")
    assert 'href="javascript:' not in html
    assert "<img" not in html
    assert '<a class="image-link" href="https://example.org/c.png">[image: chart &lt;b&gt;]</a>' in html
    assert '<a href="https://e.org">ok</a>' in html


def test_tables_render_and_empty_is_empty() -> None:
    assert "<table>" in render_markdown("| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert render_markdown("  \n") == ""
