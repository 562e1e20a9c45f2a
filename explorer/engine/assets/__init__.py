"""Assets: identity and URIs (URI-1 .. URI-6)."""

from explorer.engine.assets.uri import (
    MAX_IDENTIFIER_LENGTH,
    PASSWORD_WARNING,
    AliasIdentity,
    AssetError,
    AssetIdentity,
    AssetKind,
    AssetRef,
    Conflict,
    asset_alias,
    asset_ref,
    conflicts,
    make_asset,
    near_misses,
    normalize_uri,
)

__all__ = [
    "MAX_IDENTIFIER_LENGTH",
    "PASSWORD_WARNING",
    "AliasIdentity",
    "AssetError",
    "AssetIdentity",
    "AssetKind",
    "AssetRef",
    "Conflict",
    "asset_alias",
    "asset_ref",
    "conflicts",
    "make_asset",
    "near_misses",
    "normalize_uri",
]
