"""``blockyaml.load_block_yaml`` gives PyYAML's data (``frontmatter.parse_yaml``) for every text it reads, and
leaves every other text to PyYAML: on generated canonical documents, on random YAML-ish text and on every
bundled record."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchledger.ledger.blockyaml import load_block_yaml
from benchledger.ledger.frontmatter import dump_yaml, parse_yaml, split_front_matter

LEDGER = Path(__file__).resolve().parents[3] / "ledger"
KEYS = st.one_of(st.from_regex(r"[a-z_][a-z0-9_-]{0,8}", fullmatch=True),
                 st.sampled_from(["on", "off", "yes", "no", "y", "n", "null", "true", "False", "value", "1a"]))
TEXT = st.lists(st.sampled_from([*"ab1.-: #'\"|>[]{},&*!%@`?~\\/é€\u00a0\n\t\x01\x7f", ": ", " #", "\u2028"]),
                max_size=12).map("".join)
SCALARS = st.one_of(TEXT, st.integers(-10**12, 10**12), st.floats(allow_nan=False, allow_infinity=True),
                    st.booleans(), st.none(), st.dates(dt.date(1900, 1, 1), dt.date(2100, 1, 1)),
                    st.sampled_from(["null", "~", "yes", "on", "1_000", "0x1F", "1e5", "2026-13-45", "12:30",
                                     "-", "- a", "---", "...", "=", "<<", "''", "'", "a'b", ".inf", ".NaN"]))
DATA = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(KEYS, inner, max_size=4)), max_leaves=25)


def pyyaml(text: str) -> tuple[str, Any]:
    """What PyYAML gives: ('ok', data) or ('error', message)."""
    try:
        return "ok", parse_yaml(text)[0]
    except yaml.YAMLError as exc:
        return "error", str(exc)


def assert_agrees(text: str) -> bool:
    """The fast path's data is PyYAML's (types included) whenever it reads the text; whether it read it."""
    fast = load_block_yaml(text)
    if fast is None:
        return False
    assert pyyaml(text) == ("ok", fast)
    assert repr(fast) == repr(parse_yaml(text)[0])  # 1 and 1.0 and True differ here
    return True


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.dictionaries(KEYS, DATA, min_size=1, max_size=6))
def test_canonical_dumps_read_as_pyyaml_reads_them(data: dict[str, Any]) -> None:
    assert_agrees(dump_yaml(data))


@settings(max_examples=600, deadline=None)
@given(lines=st.lists(st.tuples(st.integers(0, 6), st.lists(st.sampled_from(
    ["a", "key", "on", "null", ":", ": ", "- ", "-", "'", "''", "x y", " #", "#", "1", "1.5", "2026-01-02", "[]",
     "{}", "[a]", "|", ">", '"q"', "&a", "*a", "!!str", "?", " ", "é", "\t"]), max_size=5)), min_size=1,
    max_size=8))
def test_random_text_is_read_as_pyyaml_reads_it_or_left_to_it(lines: list[tuple[int, list[str]]]) -> None:
    assert_agrees("".join(" " * indent + "".join(parts) + "\n" for indent, parts in lines))


def test_known_shapes() -> None:
    text = "a: 1\nb:\n- x: 'it''s'\n  y: []\n- 2\nc:\n  d: null\n  e: 2026-11-30\nf:\n"
    assert load_block_yaml(text) == {"a": 1, "b": [{"x": "it's", "y": []}, 2],
                                     "c": {"d": None, "e": dt.date(2026, 11, 30)}, "f": None}
    for unusual in ("a: 1 # note\n", "a: b\n  c\n", "a: 1\na: 2\n", "on: 1\n", 'a: "x"\n', "a: |\n  x\n",
                    "a: &x 1\n", "a: [1]\n", "a: 0x1F\n", "- 1\n", "a: 1\n\nb: 2\n", "a: 1 \n", "a:\tb\n",
                    "a: b\x01c\n", "a: b\x7f\n", "a: \x0b\n", "a: b\x85\n", "a: \ufeffb\n", "a: b\u2028c\n"):
        assert load_block_yaml(unusual) is None, unusual


def test_every_bundled_record_reads_as_pyyaml_reads_it() -> None:
    read = total = 0
    for path in sorted(LEDGER.glob("*/*.md")):
        split = split_front_matter(path.read_text(encoding="utf-8"))
        assert not isinstance(split, str), path
        total += 1
        read += assert_agrees(split.yaml_text)
    assert total > 100 and read >= 0.9 * total  # the fast path is the common path, not a rare one


def test_a_line_read_again_gives_new_lists_and_mappings() -> None:
    """Lines are remembered by their text (``_LINES``): an empty list or mapping read from the same line twice
    is two objects, so changing one record's data never changes another's."""
    first = load_block_yaml("a: []\nb: {}\nc:\n- []\n")
    assert first == {"a": [], "b": {}, "c": [[]]}
    first["a"].append(1)
    first["b"]["x"] = 1
    first["c"][0].append(1)
    assert load_block_yaml("a: []\nb: {}\nc:\n- []\n") == {"a": [], "b": {}, "c": [[]]}
    assert load_block_yaml("z:\n  a: []\n") == {"z": {"a": []}}
