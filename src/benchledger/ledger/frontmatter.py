"""Front matter: split a record file into YAML + Markdown body, parse YAML with line numbers, dump canonically."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

import yaml

DELIMITER = "---"


@dataclass(frozen=True)
class SplitFile:
    """A record file cut into its parts; ``yaml_first_line`` is the 1-based file line of the YAML's first line."""

    yaml_text: str
    body: str
    yaml_first_line: int


def split_front_matter(text: str) -> SplitFile | str:
    """Split ``---\\n<yaml>---\\n<body>``; returns an error message (str) when the layout is wrong."""
    if not text.startswith(DELIMITER + "\n"):
        return "expected the file to start with a '---' line (YAML front matter)"
    rest = text[len(DELIMITER) + 1 :]
    if rest.startswith(DELIMITER + "\n"):
        return "empty front matter"
    end = rest.find("\n" + DELIMITER + "\n")
    if end == -1:
        if rest.endswith("\n" + DELIMITER):
            return SplitFile(rest[: -len(DELIMITER)], "", 2)
        return "no closing '---' line after the YAML front matter"
    return SplitFile(rest[: end + 1], rest[end + len(DELIMITER) + 2 :], 2)


_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SCALARS = yaml.SafeLoader("")
_STR_TAG = "tag:yaml.org,2002:str"


def parse_yaml(text: str) -> tuple[Any, yaml.Node | None]:
    """Parse YAML into plain data and its node tree (line marks for errors) in one pass.

    The C parser builds the node tree; scalars are converted with PyYAML's safe constructors, so the values
    are what ``yaml.safe_load`` gives — except what a record never needs and a reader could misread:
    anchors and aliases (an alias bomb of a few KB would expand to GBs), numbers that are not plain decimals
    (``0x2F``, ``0o17``, ``1_000``, ``1:20``) and NaN/Infinity. Each is a ``yaml.YAMLError`` with its line.
    """
    if "&" in text:
        _reject_anchors(text)
    node = yaml.compose(text, Loader=_Loader)
    return (None if node is None else _to_python(node, set())), node


_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_DECIMAL_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_DECIMAL_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def _reject_anchors(text: str) -> None:
    for event in yaml.parse(text, Loader=_Loader):
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise yaml.constructor.ConstructorError(
                None, None, f"YAML anchors/aliases are not allowed in records (&{anchor}): write the value out",
                event.start_mark)  # type: ignore[arg-type]


def _to_python(node: yaml.Node, seen: set[int]) -> Any:
    if id(node) in seen:
        raise yaml.constructor.ConstructorError(
            None, None, "YAML aliases are not allowed in records: write the value out", node.start_mark)
    seen.add(id(node))
    if isinstance(node, yaml.ScalarNode):
        return node.value if node.tag == _STR_TAG else construct_scalar(node)
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key, value in node.value:
            name = _to_python(key, seen)
            if name in out:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key {name!r}", key.start_mark)
            out[name] = _to_python(value, seen)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_to_python(item, seen) for item in node.value]
    raise yaml.constructor.ConstructorError(None, None, f"unsupported YAML node {node.tag}", node.start_mark)


def construct_scalar(node: yaml.ScalarNode) -> Any:
    """A resolved scalar that is not a string: what ``yaml.safe_load`` gives (a plain decimal number, a bool,
    null, a date), or a ``yaml.YAMLError``."""
    _check_number(node)
    try:
        return _SCALARS.construct_object(node, deep=True)
    except (ValueError, OverflowError) as exc:  # e.g. a timestamp 2026-13-45
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value!r} is not a valid {node.tag.rsplit(':', 1)[-1]}: {exc}", node.start_mark,
        ) from None


def _check_number(node: yaml.ScalarNode) -> None:
    """Numbers are plain decimals: YAML 1.1's hex, octal, base-60, underscores, NaN and Infinity are refused."""
    pattern = {_INT_TAG: _DECIMAL_INT, _FLOAT_TAG: _DECIMAL_FLOAT}.get(node.tag)
    if pattern is not None and not pattern.fullmatch(node.value):
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value!r} is not a plain decimal number (write e.g. 47 or 47.0; quote it if it is text)",
            node.start_mark)


def first_comment_line(text: str) -> int | None:
    """0-based line of the first YAML comment in ``text`` (a ``#`` outside every scalar, at a line start or after
    a space), or None. The canonical dump writes no comments, so a rewrite would drop them."""
    if "#" not in text:
        return None
    node = yaml.compose(text, Loader=_Loader)
    spans = sorted(_scalar_spans(node)) if node is not None else []
    position = 0
    while (position := text.find("#", position)) != -1:
        inside = any(start <= position < end for start, end in spans)
        if not inside and (position == 0 or text[position - 1] in " \t\n"):
            return text.count("\n", 0, position)
        position += 1
    return None


def _scalar_spans(node: yaml.Node) -> list[tuple[int, int]]:
    if isinstance(node, yaml.ScalarNode):
        return [(node.start_mark.index, node.end_mark.index)]
    children: list[yaml.Node] = []
    if isinstance(node, yaml.MappingNode):
        children = [part for pair in node.value for part in pair]
    elif isinstance(node, yaml.SequenceNode):
        children = list(node.value)
    return [span for child in children for span in _scalar_spans(child)]


def line_of(node: yaml.Node | None, loc: tuple[int | str, ...]) -> int | None:
    """0-based line of the deepest node reachable along ``loc`` (keys not found are skipped)."""
    if node is None:
        return None
    line = node.start_mark.line
    current = node
    for part in loc:
        child = _child(current, part)
        if child is None:
            continue
        current = child
        line = current.start_mark.line
    return line


def _child(node: yaml.Node, part: int | str) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                return value if not isinstance(value, yaml.ScalarNode) or value.value != "" else key
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        child: yaml.Node = node.value[part]
        return child
    return None


class _CanonicalDumper(yaml.SafeDumper):
    """Block style, no key sorting, literal blocks for multi-line strings, no line folding."""

    def ignore_aliases(self, data: Any) -> bool:
        """Never write anchors/aliases: every value is spelled out where it is used."""
        return True


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


def _date_representer(dumper: yaml.SafeDumper, value: dt.date) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", value.isoformat())


_CanonicalDumper.add_representer(str, _str_representer)
_CanonicalDumper.add_representer(dt.date, _date_representer)


def dump_yaml(data: dict[str, Any]) -> str:
    """Canonical YAML text of front-matter data."""
    text: str = yaml.dump(
        data, Dumper=_CanonicalDumper, sort_keys=False, allow_unicode=True, width=100_000, default_flow_style=False
    )
    return text


def join_front_matter(yaml_text: str, body: str) -> str:
    """``---\\n<yaml>---\\n<body>``."""
    return f"{DELIMITER}\n{yaml_text}{DELIMITER}\n{body}"


__all__ = ["SplitFile", "construct_scalar", "dump_yaml", "first_comment_line", "join_front_matter", "line_of", "parse_yaml", "split_front_matter"]
