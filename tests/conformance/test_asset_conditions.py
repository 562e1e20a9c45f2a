"""Every ``asset_conditions`` vector: is the condition satisfied by these updated assets (AS-3)?"""

from __future__ import annotations

from typing import Any

from explorer.engine.assets.condition import AssetKey, RefNode, evaluate
from explorer.engine.assets.spec import condition_from_spec

FAMILY = "asset_conditions"


def test_asset_condition(case: dict[str, Any]) -> None:
    condition = condition_from_spec(case["condition"])
    assets = case["registry"]["assets"]
    by_name = {a["name"]: AssetKey(a["name"], a["uri"]) for a in assets}
    active = [a for a in assets if a["active"]]
    aliases = {
        alias["name"]: tuple(by_name[n] for n in alias["resolves_to"])
        for alias in case["registry"]["aliases"]
    }

    def resolve_ref(ref: RefNode) -> AssetKey | None:
        for asset in active:
            if (ref.name is not None and asset["name"] == ref.name) or (
                ref.uri is not None and asset["uri"] == ref.uri
            ):
                return AssetKey(asset["name"], asset["uri"])
        return None

    for evaluation in case["evaluations"]:
        updated = {by_name[n] for n in evaluation["updated"]}
        result = evaluate(
            condition, updated.__contains__, resolve_ref, lambda name: aliases.get(name, ())
        )
        assert result == evaluation["result"], evaluation
