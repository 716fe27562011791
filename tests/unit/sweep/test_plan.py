"""The sweep file model and the plan: cells, groups, keys, pairing, placeholders, errors that name the field."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from benchledger.errors import SweepError
from benchledger.sweep.examples import DEMO, EXAMPLE
from benchledger.sweep.plan import build_plan
from benchledger.sweep.spec import load_sweep, parse_sweep


def base_file() -> dict[str, Any]:
    return {
        "name": "t",
        "servers": {"s": {"launch": "serve --port {port} {flags}", "served_model": "m",
                          "per_value": {"spec": {"none": {"flags": ""}, "mtp:3": {"flags": "--mtp 3"},
                                                 "eagle3:4": {"flags": "--eagle 4"}}},
                          "ledger": {"model": "m", "engine": "e", "accelerator": "a"}}},
        "matrix": {"axes": {"spec": ["none", "mtp:3", "eagle3:4"], "weights": ["fp8", "nvfp4"]}},
        "client": {"concurrency": [1, 4], "input_tokens": [128], "output_tokens": [64]},
    }


def plan_of(data: dict[str, Any]) -> Any:
    return build_plan(parse_sweep(data), "/tmp")


@pytest.mark.parametrize("text", [EXAMPLE, DEMO], ids=["example", "demo"])
def test_examples_validate_and_plan(text: str) -> None:
    plan = plan_of(yaml.safe_load(text))
    for group in plan.groups:
        cells = plan.group_cells(group)
        assert cells[0].baseline and all(not c.baseline for c in cells[1:])


def test_demo_is_two_cells_in_one_group_with_two_points() -> None:
    plan = plan_of(yaml.safe_load(DEMO))
    assert [c.name for c in plan.cells] == ["none", "draft-model-4"]
    assert (plan.cells[1].spec_method, plan.cells[1].spec_k) == ("draft-model", 4)
    assert len(plan.groups) == 1 and plan.groups[0].cells == ["none", "draft-model-4"]
    assert [p.label for p in plan.points] == ["i32-o16-conc-1", "i32-o16-conc-2"]


def test_three_by_four_by_five_is_twelve_cells_of_five_points() -> None:
    data = base_file()
    data["matrix"]["axes"] = {"spec": ["none", "mtp:3", "eagle3:4"], "weights": ["fp8", "nvfp4", "bf16", "int4"]}
    data["client"]["concurrency"] = [1, 2, 4, 8, 16]
    plan = plan_of(data)
    assert len(plan.cells) == 12 and len(plan.points) == 5
    assert len(plan.groups) == 4 and all(len(g.cells) == 3 for g in plan.groups)
    assert len({c.key for c in plan.cells}) == 12


def test_groups_pair_cells_differing_only_in_spec() -> None:
    plan = plan_of(base_file())
    assert [g.label for g in plan.groups] == ["fp8", "nvfp4"]
    assert plan.groups[0].cells == ["none-fp8", "mtp-3-fp8", "eagle3-4-fp8"]


def test_key_changes_with_the_client_grid_not_with_runtime_placeholders() -> None:
    a = plan_of(base_file())
    changed = base_file()
    changed["client"]["num_prompts"] = 7
    b = plan_of(changed)
    assert {c.key for c in a.cells}.isdisjoint({c.key for c in b.cells})
    assert [c.key for c in plan_of(base_file()).cells] == [c.key for c in a.cells]
    other_port = base_file()
    other_port["servers"]["s"]["port"] = "auto"
    assert [c.key for c in plan_of(other_port).cells] == [c.key for c in a.cells]


def test_a_new_spec_value_changes_the_group_key_but_not_the_baseline_key() -> None:
    a = plan_of(base_file())
    more = base_file()
    more["matrix"]["axes"]["spec"] = ["none", "mtp:3"]
    b = plan_of(more)
    assert a.cell("none-fp8").key == b.cell("none-fp8").key
    assert a.groups[0].key != b.groups[0].key


def test_exclude_and_include() -> None:
    data = base_file()
    data["matrix"]["exclude"] = [{"spec": "eagle3:4", "weights": "nvfp4"}]
    plan = plan_of(data)
    assert "eagle3-4-nvfp4" not in [c.name for c in plan.cells] and len(plan.cells) == 5
    data["matrix"]["include"] = [{"server": "s", "spec": "eagle3:4", "weights": "nvfp4"}]
    assert len(plan_of(data).cells) == 6


def test_a_group_without_baseline_is_an_error() -> None:
    data = base_file()
    data["matrix"]["exclude"] = [{"spec": "none", "weights": "fp8"}]
    with pytest.raises(SweepError, match="weights=fp8: no baseline cell"):
        plan_of(data)


def test_unpaired_sweep_has_groups_of_one() -> None:
    data = base_file()
    data["pairing"] = {"axis": "variant"}
    data["servers"]["s"]["launch"] = "serve --port {port}"
    data["servers"]["s"].pop("per_value")
    plan = plan_of(data)
    assert len(plan.groups) == 6 and all(len(g.cells) == 1 for g in plan.groups)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["servers"]["s"].update(launch="serve {nope}"), r"launch: unknown placeholder\(s\) \{nope\}"),
    (lambda d: d["servers"]["s"]["per_value"]["spec"].pop("mtp:3"), "no entry for value 'mtp:3'"),
    (lambda d: d["matrix"]["axes"]["spec"].append("mtp:x"), "K must be a whole number"),
    (lambda d: d["matrix"].update(exclude=[{"colour": "red"}]), "no axis named colour"),
    (lambda d: d["vars"].update(port="1") if "vars" in d else d.update(vars={"port": "1"}), "defined twice"),
    (lambda d: d["matrix"]["axes"].update(server=["other"]), "no server template named other"),
])
def test_plan_errors_name_what_is_wrong(edit: Any, message: str) -> None:
    data = copy.deepcopy(base_file())
    edit(data)
    with pytest.raises(SweepError, match=message):
        plan_of(data)


def test_file_errors_name_the_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    data = base_file()
    data["client"]["concurrency"] = []
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(SweepError, match=r"s\.yaml: client: Value error, give concurrency or request_rate"):
        load_sweep(path)
    path.write_text("name: [unclosed", encoding="utf-8")
    with pytest.raises(SweepError, match="invalid YAML"):
        load_sweep(path)
    path.write_text(yaml.safe_dump({**base_file(), "colour": 1}), encoding="utf-8")
    with pytest.raises(SweepError, match="colour: Extra inputs are not permitted"):
        load_sweep(path)


def test_readme_sweep_file_is_the_demo() -> None:
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Sweeps", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    shown, demo = plan_of(yaml.safe_load(block)), plan_of(yaml.safe_load(DEMO))
    assert [(c.name, c.key) for c in shown.cells] == [(c.name, c.key) for c in demo.cells]


def test_sweep_names_use_the_ledger_slug_pattern() -> None:
    from benchledger.schema.provenance import SLUG_PATTERN as LEDGER
    from benchledger.sweep.spec import SLUG_PATTERN

    assert SLUG_PATTERN == LEDGER


def test_a_prompts_file_takes_a_single_input_size() -> None:
    data = base_file()
    data["client"].update(prompts="prompts.jsonl", input_tokens=[128, 256])
    with pytest.raises(SweepError, match="with a prompts file, input_tokens must be a single value"):
        plan_of(data)
    data["client"]["input_tokens"] = [128]
    assert len(plan_of(data).points) == 2


def test_client_exclude_drops_matching_points() -> None:
    data = base_file()
    data["client"].update(input_tokens=[512, 32768], concurrency=[1, 16, 64],
                          exclude=[{"input_tokens": 32768, "concurrency": 64}])
    labels = [p.label for p in plan_of(data).points]
    assert labels == ["i512-o64-conc-1", "i512-o64-conc-16", "i512-o64-conc-64", "i32768-o64-conc-1",
                      "i32768-o64-conc-16"]
    data["client"]["exclude"] = [{"output_tokens": 64}]
    with pytest.raises(SweepError, match="drops every client point"):
        plan_of(data)
    data["client"]["exclude"] = [{"context": 1}]
    with pytest.raises(SweepError, match="keys must be among input_tokens"):
        plan_of(data)


def test_the_prepared_h200_sweep_plans_and_cites_ledger_records() -> None:
    from benchledger.ledger.paths import bundled_ledger_dir
    from benchledger.sweep.collect import check_ledger_ids

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "sweeps" / "h200-llama-cpp-context.yaml"
    plan = build_plan(load_sweep(path), str(path.parent))
    assert [c.name for c in plan.cells] == ["none", "draft-model-1", "draft-model-2", "draft-model-4", "draft-model-8"]
    assert len(plan.groups) == 1 and len(plan.points) == 15
    check_ledger_ids(plan, bundled_ledger_dir())
