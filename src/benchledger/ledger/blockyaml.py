"""The YAML that ``frontmatter.dump_yaml`` writes, read line by line without building a node tree.

A record file in canonical form is a block mapping of identifier keys whose values are plain scalars,
one-line single-quoted scalars, ``[]``/``{}``, nested block mappings and block sequences (indented as PyYAML
dumps them). ``load_block_yaml`` reads exactly that subset and returns None for anything else — a tab, a
comment, a double-quoted or block scalar, a flow collection, a multi-line scalar, an unusual key, anything it
is not sure of — so the caller parses that text with PyYAML (``frontmatter.parse_yaml``). Scalars are resolved
and constructed by PyYAML's own resolver and constructors, so a value read here is the value PyYAML gives;
tests/unit/ledger/test_blockyaml.py compares the two on generated documents and on every bundled record.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from benchledger.ledger.frontmatter import construct_scalar

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_UNSURE_TEXT = re.compile(
    "[\t\ufeff\x85\u2028\u2029]"  # tabs, a byte-order mark, YAML 1.1's other line breaks
    "|[^\x0a\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"  # what PyYAML's reader refuses
)
_UNSURE_START = frozenset("[]{}&*!%@`,?:'\"|>#- ")
"""First characters of a value that is not a plain scalar (``-`` and ``'`` are looked at more closely)."""
_STR_TAG = "tag:yaml.org,2002:str"
_RESOLVER = yaml.resolver.Resolver()
_IMPLICIT_FIRST = frozenset(k for k in _RESOLVER.yaml_implicit_resolvers if k)
_PLAIN = (True, False)
_MEMO: dict[str, Any] = {}
"""Plain scalars that start like something else than a string (``null``, ``true``, ``2``, ``note``…) → value."""
_KEYS: set[str] = set()
"""Keys seen to be identifiers that are strings."""
_MEMO_MAX = 100_000
_NESTED, _SCALAR, _EMPTY_LIST, _EMPTY_MAPPING = object(), object(), object(), object()
_NOT_A_KEY_LINE: tuple[str, object, Any] = ("", None, None)
_LINES: dict[str, tuple[str, object, Any]] = {}
"""Text of a mapping line (indentation left out) → what ``_key_value`` read from it."""
_INDENTED: dict[str, tuple[int, str]] = {}
"""A line → its indentation and its text."""


def _unsure_text(text: str) -> bool:
    """Whether ``text`` has a character left to PyYAML (``_UNSURE_TEXT``). For ASCII text (known without reading
    it) that is a control character other than the line feed, i.e. what ``isprintable`` refuses: several times
    cheaper than the regular expression."""
    if text.isascii():
        return not text.replace("\n", "").isprintable()
    return _UNSURE_TEXT.search(text) is not None


class _Unsure(Exception):
    """This text is left to PyYAML."""


def load_block_yaml(text: str) -> dict[str, Any] | None:
    """The data of a canonical front matter, or None when ``text`` is not in the subset read here."""
    if not text.endswith("\n") or text.startswith("\n") or "\n\n" in text or " \n" in text or _unsure_text(text):
        return None  # blank lines and trailing spaces: left to PyYAML
    known = _INDENTED.get
    lines = [known(line) or _indented(line) for line in text[:-1].split("\n")]
    try:
        data, end = _mapping(lines, 0, 0)
    except (_Unsure, yaml.YAMLError, ValueError, OverflowError, RecursionError):
        return None
    return data if end == len(lines) else None


def _mapping(lines: list[tuple[int, str]], i: int, indent: int) -> tuple[dict[str, Any], int]:
    """A block mapping; each line's key and value are read once per distinct line text (``_key_value``)."""
    out: dict[str, Any] = {}
    n = len(lines)
    while i < n:
        level, content = lines[i]
        if level != indent:
            break
        parsed = _LINES.get(content) or _key_value(content)
        if parsed is _NOT_A_KEY_LINE:
            raise _Unsure
        key, shape, value = parsed
        if key in out:
            raise _Unsure  # PyYAML reports the duplicate, with its line
        i += 1
        if shape is _NESTED:  # "key:": a nested block, or null
            if i < n and lines[i][0] > indent:
                value, i = _block(lines, i, lines[i][0])
            elif i < n and lines[i][0] == indent and lines[i][1].startswith("- "):
                value, i = _sequence(lines, i, indent)  # PyYAML's sequences are not indented under their key
        else:
            if shape is not _SCALAR:
                value = [] if shape is _EMPTY_LIST else {}  # a new one each time: lists and mappings change
            if i < n and lines[i][0] > indent:
                raise _Unsure  # a scalar continued on the next line
        out[key] = value
    return out, i


def _indented(line: str) -> tuple[int, str]:
    """``(indentation, text)`` of a line, remembered (``_INDENTED``)."""
    content = line.lstrip(" ")
    if len(_INDENTED) >= _MEMO_MAX:
        _INDENTED.clear()
    split = _INDENTED[line] = (len(line) - len(content), content)
    return split


def _key_value(content: str) -> tuple[str, object, Any]:
    """``(key, shape, value)`` of one mapping line, remembered by its text (``_LINES``; most lines of a ledger
    repeat: keys with the same value): ``_NESTED`` for ``key:`` (its value is null unless a block follows),
    ``_SCALAR`` with the value, ``_EMPTY_LIST`` / ``_EMPTY_MAPPING`` for ``[]`` / ``{}``; ``_NOT_A_KEY_LINE``
    for a line left to PyYAML."""
    try:
        parsed = _read_key_value(content)
    except (_Unsure, yaml.YAMLError, ValueError, OverflowError):
        parsed = _NOT_A_KEY_LINE
    if len(_LINES) >= _MEMO_MAX:
        _LINES.clear()
    _LINES[content] = parsed
    return parsed


def _read_key_value(content: str) -> tuple[str, object, Any]:
    at = content.find(": ")
    if at > 0:
        key, rest = content[:at], content[at + 2 :]
    elif content[-1] == ":":
        return _key(content[:-1]), _NESTED, _plain("")
    else:
        raise _Unsure
    key = _key(key)
    first = rest[0]
    if first in _UNSURE_START and (first != "-" or len(rest) == 1 or rest[1] == " "):
        value = _scalar(rest)
        if isinstance(value, list | dict):  # ``[]`` or ``{}``: a new one for each use
            return key, _EMPTY_LIST if isinstance(value, list) else _EMPTY_MAPPING, None
        return key, _SCALAR, value
    if ": " in rest or " #" in rest or rest[-1] == ":":
        raise _Unsure  # a mapping or a comment inside: PyYAML decides
    if first in _IMPLICIT_FIRST:
        return key, _SCALAR, _plain(rest)
    return key, _SCALAR, rest  # no implicit resolver starts with this character: a string


def _key(key: str) -> str:
    if key not in _KEYS:
        _new_key(key)
    return key


def _sequence(lines: list[tuple[int, str]], i: int, indent: int) -> tuple[list[Any], int]:
    out: list[Any] = []
    n = len(lines)
    while i < n and lines[i][0] == indent and lines[i][1].startswith("- "):
        rest = lines[i][1][2:]
        if _is_key_line(rest):  # "- key: …": a mapping whose first line starts after the dash
            lines[i] = (indent + 2, rest)
            value, i = _mapping(lines, i, indent + 2)
        else:
            value = _scalar(rest)
            i += 1
            if i < n and lines[i][0] > indent:
                raise _Unsure
        out.append(value)
    return out, i


def _block(lines: list[tuple[int, str]], i: int, indent: int) -> tuple[Any, int]:
    if lines[i][1].startswith("- "):
        return _sequence(lines, i, indent)
    return _mapping(lines, i, indent)


def _key_line(content: str) -> tuple[str, str | None]:
    """``(key, value text)`` of ``key: value``, ``(key, None)`` of ``key:``."""
    at = content.find(": ")
    if at > 0:
        key, rest = content[:at], content[at + 2 :]
    elif content.endswith(":"):
        key, rest = content[:-1], None
    else:
        raise _Unsure
    if key not in _KEYS:
        _new_key(key)
    return key, rest


def _new_key(key: str) -> None:
    """Remember a key that is an identifier and a string; else ``_Unsure``."""
    if not _KEY.fullmatch(key) or (key[0] in _IMPLICIT_FIRST and _resolve(key) != _STR_TAG):
        raise _Unsure  # not an identifier, or not a string in YAML 1.1 (``on``, ``null``)
    if len(_KEYS) >= _MEMO_MAX:
        _KEYS.clear()
    _KEYS.add(key)


def _is_key_line(content: str) -> bool:
    try:
        _key_line(content)
    except _Unsure:
        return False
    return True


def _resolve(text: str) -> str:
    tag: str = _RESOLVER.resolve(yaml.ScalarNode, text, _PLAIN)  # type: ignore[no-untyped-call]
    return tag


def _scalar(text: str) -> Any:
    first = text[0]
    if first not in _UNSURE_START or (first == "-" and len(text) > 1 and text[1] != " "):
        if ": " in text or " #" in text or text.endswith(":"):
            raise _Unsure  # a mapping or a comment inside: PyYAML decides
        return _plain(text)
    if first == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != "'" or "'" in inner.replace("''", ""):
            raise _Unsure
        return inner.replace("''", "'")
    if text == "[]":
        return []
    if text == "{}":
        return {}
    raise _Unsure


def _plain(text: str) -> Any:
    if text and text[0] not in _IMPLICIT_FIRST:
        return text  # no implicit resolver starts with this character: a string
    if text in _MEMO:
        return _MEMO[text]
    tag = _resolve(text)
    value = text if tag == _STR_TAG else construct_scalar(yaml.ScalarNode(tag, text, None, None))
    if len(_MEMO) >= _MEMO_MAX:
        _MEMO.clear()
    _MEMO[text] = value
    return value


__all__ = ["load_block_yaml"]
