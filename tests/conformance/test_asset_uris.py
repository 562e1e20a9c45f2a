"""Every ``asset_uris`` vector: the name and URI an asset keeps, or its refusal (URI-1..URI-6).

``Asset``/``Dataset``/``Model`` go through :func:`make_asset`, ``Asset.ref`` through
:func:`asset_ref`, ``AssetAlias`` through :func:`asset_alias`. For refusals only the
fact of refusing is compared (the README: message and type are documentation).
Warnings are written ``"Category: text"``; the text is compared as well.
"""

from __future__ import annotations

from typing import Any

import pytest

from explorer.engine.assets.uri import AssetError, AssetKind, asset_alias, asset_ref, make_asset

FAMILY = "asset_uris"

_KINDS: dict[str, AssetKind] = {"Asset": "asset", "Dataset": "dataset", "Model": "model"}


def _construct(case: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The case's call, answered in the vector's own shape, with the warnings it emitted."""
    args = case["call"].get("args", [])
    kwargs = case["call"].get("kwargs", {})
    cls = case["class"]
    if cls == "Asset.ref":
        ref = asset_ref(*args, **kwargs)
        form = {"name": ref.name} if ref.name is not None else {"uri": ref.uri}
        return {"ref": form}, []
    if cls == "AssetAlias":
        alias = asset_alias(*args, **kwargs)
        return {"name": alias.name, "group": alias.group}, []
    identity, warnings = make_asset(*args, **kwargs, kind=_KINDS[cls])
    result = {
        "name": identity.name,
        "uri": identity.uri,
        "group": identity.group,
        "normalized_uri": identity.normalized_uri,
    }
    return result, warnings


def test_asset_uri(case: dict[str, Any]) -> None:
    if "error" in case:
        with pytest.raises(AssetError):
            _construct(case)
        return
    result, warnings = _construct(case)
    assert result == case["result"]
    expected_warnings = [text.partition(": ")[2] for text in case["warnings"]]
    assert warnings == expected_warnings
