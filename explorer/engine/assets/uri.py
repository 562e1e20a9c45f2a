"""Asset names and URIs: what ``Asset(...)`` keeps, and which assets clash (URI-1 .. URI-6).

Matches ``airflow/sdk/definitions/asset/__init__.py`` of Airflow 3.3.2
(``Asset.__init__``, ``_sanitize_uri``, ``_validate_identifier``,
``Asset.ref``, ``AssetAlias``, ``Dataset``, ``Model``) and
``jobs/scheduler_job_runner.py::_activate_referenced_assets`` for conflicts.

Airflow splits and joins URIs with ``urllib.parse.urlsplit``/``urlunsplit``,
whose fine print moves between Python releases (``urlunsplit`` of a path
starting with ``//`` changed in 3.12.4). The conformance vectors were computed
on Python 3.11.7, so :func:`_split` and :func:`_join` restate that release's
rules here; the result is the same whichever Python runs the simulator.
Query strings go through ``urllib.parse.parse_qsl``/``urlencode`` as in
Airflow (their behaviour is the same on every supported Python).

No provider packages are modelled: only ``file`` URIs have an AIP-60
normalizer (core's no-op one); the S3, GCS, Postgres... normalizers and their
extra checks exist only when those providers are installed (URI-3). The
MySQL-only "ASCII characters" check is not modelled either (URI-4).
"""

from __future__ import annotations

import functools
import ipaddress
import re
import string
import unicodedata
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from explorer.engine.errors import EngineError

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

AssetKind = Literal["asset", "dataset", "model"]

#: ``_validate_identifier``: names, URIs and groups longer than this are refused (URI-4).
MAX_IDENTIFIER_LENGTH = 1500

#: The ``UserWarning`` ``_sanitize_uri`` emits when it drops a password (URI-3).
PASSWORD_WARNING = (
    "An Asset URI should not contain a password. User info has been automatically dropped."
)

#: ``Asset.name`` values Airflow forbids (``_validate_asset_name``, URI-4).
_PROHIBITED_NAMES = frozenset({"self", "context"})

#: Schemes with an AIP-60 normalizer in a default installation (``_get_uri_normalizer``).
_NORMALIZED_SCHEMES = frozenset({"file"})

_CLASS_NAMES: dict[str, str] = {"asset": "Asset", "dataset": "Dataset", "model": "Model"}

# Python 3.11.7 ``urllib.parse``: the text stripped from the left, the characters removed
# everywhere, the characters a scheme may use, and the schemes ``urlunsplit`` gives a ``//``.
_C0_CONTROL_OR_SPACE = "".join(chr(code) for code in range(0x21))
_REMOVED_EVERYWHERE = ("\t", "\r", "\n")
_SCHEME_CHARS = frozenset(string.ascii_letters + string.digits + "+-.")
# fmt: off
_USES_NETLOC = frozenset({
    "ftp", "http", "gopher", "nntp", "telnet", "imap", "wais", "file", "mms", "https",
    "shttp", "snews", "prospero", "rtsp", "rtsps", "rtspu", "rsync", "svn", "svn+ssh",
    "sftp", "nfs", "git", "git+ssh", "ws", "wss",
})
# fmt: on
_IPV_FUTURE = re.compile(r"\Av[a-fA-F0-9]+\..+\Z")


class AssetError(EngineError):
    """An asset, reference or alias Airflow refuses to construct (URI-1, URI-4)."""


@dataclass(frozen=True)
class AssetIdentity:
    """What ``Asset(...)`` keeps that matters to scheduling.

    Equality and hashing use ``(name, uri)`` only: that pair is the asset's
    identity in Airflow's database and in the scheduler (URI-2). ``group`` is
    metadata (Airflow's Python ``==`` compares it, its database does not), and
    ``normalized_uri`` is the AIP-60 form derived from ``uri`` (``None`` unless
    the scheme has a normalizer; only ``file`` by default).
    """

    name: str
    uri: str
    group: str = field(default="asset", compare=False)
    normalized_uri: str | None = field(default=None, compare=False)

    def label(self) -> str:
        """The name, followed by the URI when they differ."""
        return self.name if self.name == self.uri else f"{self.name} ({self.uri})"


@dataclass(frozen=True)
class AssetRef:
    """``Asset.ref(name=...)`` or ``Asset.ref(uri=...)``: exactly one is set.

    The URI is kept verbatim, never normalized, and it matches an asset's
    stored (normalized) URI by plain string equality, so
    ``Asset.ref(uri="s3://b/p/")`` never finds ``Asset("s3://b/p/")``, whose
    URI is ``s3://b/p`` (URI-3, URI-6; ``assets/manager.py`` compares
    ``DagScheduleAssetUriReference.uri == asset.uri``).
    """

    name: str | None = None
    uri: str | None = None

    def __post_init__(self) -> None:
        if (self.name is None) == (self.uri is None):
            raise AssetError("an asset reference has exactly one of name or uri")


@dataclass(frozen=True)
class AliasIdentity:
    """``AssetAlias(name, group=...)``; the name alone identifies it."""

    name: str
    group: str = field(default="asset", compare=False)


@dataclass(frozen=True)
class Conflict:
    """An asset that stays inactive because another active asset holds its name or URI.

    ``field`` says which of the two clashes; ``active`` is the asset holding it
    (same name and another URI, or same URI and another name) (URI-2, URI-6).
    """

    inactive: AssetIdentity
    field: Literal["name", "uri"]
    active: AssetIdentity

    @property
    def message(self) -> str:
        """The text of the ``ASSET_CONFLICT`` DAG warning Airflow attaches to the DAGs
        referencing the inactive asset (``_activate_referenced_assets``)."""
        taken = self.active.uri if self.field == "name" else self.active.name
        asset = self.inactive
        return (
            f'Cannot activate asset Asset(name="{asset.name}", uri="{asset.uri}", '
            f'group="{asset.group}"); {self.field} is already associated to {taken!r}'
        )


class _Parts(NamedTuple):
    scheme: str
    netloc: str
    path: str
    query: str
    fragment: str


def make_asset(
    name: str | None = None,
    uri: str | None = None,
    *,
    group: str | None = None,
    kind: AssetKind = "asset",
) -> tuple[AssetIdentity, list[str]]:
    """``Asset(name, uri, group=...)`` (or ``Dataset``/``Model``): the identity and warnings.

    URI-1: the name defaults to the URI as written, before normalization; the
    URI defaults to the name; the group to ``kind``. As in Airflow's attrs
    class, the URI is normalized first (so ``airflow://`` and password
    warnings come before any name check), then name, URI and group are
    validated in that order. A URI that is not a string is turned into one
    with ``str()``, as ``_sanitize_uri`` does (it is meant for
    ``ObjectStoragePath``); a name or group that is not a string is refused.
    Raises :class:`AssetError` for every refusal (URI-4).
    """
    args = (name, uri, group, kind)
    if all(value is None or type(value) is str for value in args):
        identity, warnings = _make_asset(*args)
    else:  # (a uri that is not a string may not be hashable)
        identity, warnings = _make_asset.__wrapped__(*args)
    return identity, list(warnings)


@functools.lru_cache(maxsize=1 << 16)
def _make_asset(
    name: str | None, uri: str | None, group: str | None, kind: AssetKind
) -> tuple[AssetIdentity, tuple[str, ...]]:
    """:func:`make_asset`, remembered: a pure function of its arguments, asked for every
    asset node each time a scenario is checked (every edit in the GUI checks it)."""
    cls = _CLASS_NAMES[kind]
    if name is None and uri is None:
        raise AssetError(f"{cls}() needs a name or a uri (Airflow: TypeError)")
    if name is None:
        name = str(uri)
    raw_uri: object = name if uri is None else uri
    stored_uri, warnings = _sanitize(str(raw_uri))
    _check_identifier(cls, "name", name, non_empty=True)
    if name in _PROHIBITED_NAMES:
        raise AssetError(f"prohibited name for {cls.lower()}: {name!r} (Airflow reserves it)")
    _check_identifier(cls, "uri", stored_uri, non_empty=True)
    if group is None:
        group = kind
    _check_identifier(cls, "group", group, non_empty=False)
    identity = AssetIdentity(name, stored_uri, group, _aip60_uri(stored_uri))
    return identity, tuple(warnings)


def normalize_uri(text: str) -> str:
    """The URI Airflow stores for ``text`` (``_sanitize_uri``; URI-3, URI-5).

    Text with neither a scheme nor a ``//host`` part, or whose scheme starts
    with ``x-``, is kept verbatim. Otherwise the scheme is lowercased, a
    ``user:password@`` is dropped whole, the query is re-encoded sorted
    without empty values, trailing slashes go (an empty path becomes ``/``),
    the fragment goes, and the parts are joined again. The ``airflow``
    scheme raises :class:`AssetError` (URI-4). Length is not checked here.
    """
    return _sanitize(text)[0]


def asset_ref(name: object = None, uri: object = None) -> AssetRef:
    """``Asset.ref(name=...)`` / ``Asset.ref(uri=...)``, stored verbatim.

    Airflow only tests truthiness: both given is refused, neither (or only
    empty strings) is refused, and nothing else is validated, so
    ``Asset.ref(name=" ")``, ``Asset.ref(name="self")`` and
    ``Asset.ref(uri="airflow://x")`` are accepted. A value that is not a
    string is refused here (Airflow would keep it, but no asset could ever
    match it, names and URIs being strings).
    """
    if name and uri:
        raise AssetError("an asset reference names either a name or a URI, not both")
    value = name or uri
    if not value:
        raise AssetError("an asset reference needs a non-empty name or uri")
    if not isinstance(value, str):
        field_name = "name" if name else "uri"
        raise AssetError(f"an asset reference's {field_name} must be a string, not {value!r}")
    return AssetRef(name=value) if name else AssetRef(uri=value)


def asset_alias(name: str, group: str = "asset") -> AliasIdentity:
    """``AssetAlias(name, group=...)``: the name must be a non-empty string (``self`` and
    ``context`` are allowed), the group a string (possibly empty); both at most 1500
    characters and not only whitespace (URI-4)."""
    _check_identifier("AssetAlias", "name", name, non_empty=True)
    _check_identifier("AssetAlias", "group", group, non_empty=False)
    return AliasIdentity(name, group)


def near_misses(uri: str, known: Iterable[str]) -> list[str]:
    """The ``known`` URIs that differ from ``uri`` only by trailing slashes, the scheme's
    case, the host's case, or the scheme itself (same rest); ``known`` order, no repeats.

    For the "a consumer waits on an asset no producer emits" alert: these are
    the spellings the user probably meant (URI-3, URI-5, URI-6). An exact match
    is not a near miss.
    """
    wanted = _loose_key(uri)
    found: list[str] = []
    for candidate in known:
        if candidate != uri and candidate not in found and _loose_key(candidate) == wanted:
            found.append(candidate)
    return found


def conflicts(
    assets: Sequence[AssetIdentity],
    *,
    already_active: Iterable[AssetIdentity] = (),
) -> list[Conflict]:
    """The assets that stay inactive, in declaration order (URI-2, URI-6).

    Names are unique among active assets, and so are URIs: an asset whose
    name is held by an active asset with another URI, or whose URI is held by
    an active asset with another name, is not activated (the name is checked
    first, as in ``_activate_referenced_assets``). ``already_active`` are
    assets activated earlier (an earlier deploy): they always win. Among the
    newcomers Airflow's winner depends on the order its database returns the
    rows, i.e. it is arbitrary (observed both ways); here the first declared
    wins, so the outcome is deterministic. An inactive asset claims nothing,
    so a later asset may still take its name or URI. Repeating an asset
    (same name and URI) is not a conflict.
    """
    by_name: dict[str, AssetIdentity] = {}
    by_uri: dict[str, AssetIdentity] = {}
    for asset in already_active:
        by_name[asset.name] = asset
        by_uri[asset.uri] = asset
    found: list[Conflict] = []
    for asset in assets:
        holder = by_name.get(asset.name)
        if holder is not None and holder.uri != asset.uri:
            found.append(Conflict(asset, "name", holder))
            continue
        holder = by_uri.get(asset.uri)
        if holder is not None and holder.name != asset.name:
            found.append(Conflict(asset, "uri", holder))
            continue
        by_name.setdefault(asset.name, asset)
        by_uri.setdefault(asset.uri, asset)
    return found


def _sanitize(text: str) -> tuple[str, list[str]]:
    """``_sanitize_uri``: the stored URI and the warnings emitted on the way (URI-3, URI-4)."""
    parts = _split(text)
    if not parts.scheme or parts.scheme.startswith("x-"):
        return text, []
    if parts.scheme == "airflow":
        raise AssetError(f"asset URI {_show(text)}: the scheme 'airflow' is reserved")
    netloc, warnings = parts.netloc, []
    userinfo, has_userinfo, host = netloc.rpartition("@")
    if has_userinfo and userinfo.partition(":")[2]:
        netloc = host
        warnings.append(PASSWORD_WARNING)
    query = ""
    if parts.query:
        query = urllib.parse.urlencode(sorted(urllib.parse.parse_qsl(parts.query)))
    path = parts.path.rstrip("/") or "/"
    return _join(_Parts(parts.scheme, netloc, path, query, "")), warnings


def _aip60_uri(stored_uri: str) -> str | None:
    """``Asset.normalized_uri``: the stored URI split and joined again, for ``file`` only."""
    try:
        parts = _split(stored_uri)
    except AssetError:
        return None
    if parts.scheme not in _NORMALIZED_SCHEMES:
        return None
    return _join(parts)


def _check_identifier(cls: str, attribute: str, value: object, *, non_empty: bool) -> None:
    """``_validate_identifier`` (and ``_validate_non_empty_identifier``), in Airflow's order."""
    if not isinstance(value, str):
        raise AssetError(f"{cls} {attribute} must be a string, not {value!r}")
    if len(value) > MAX_IDENTIFIER_LENGTH:
        raise AssetError(
            f"{cls} {attribute} cannot exceed {MAX_IDENTIFIER_LENGTH} characters "
            f"(it has {len(value)}): {_show(value)}"
        )
    if value.isspace():
        raise AssetError(f"{cls} {attribute} cannot be just whitespace: {value!r}")
    if non_empty and not value:
        raise AssetError(f"{cls} {attribute} cannot be empty")


def _split(text: str) -> _Parts:
    """``urllib.parse.urlsplit`` of Python 3.11.7; its ``ValueError`` becomes AssetError."""
    url = text.lstrip(_C0_CONTROL_OR_SPACE)
    for char in _REMOVED_EVERYWHERE:
        url = url.replace(char, "")
    scheme = netloc = query = fragment = ""
    colon = url.find(":")
    starts_like_scheme = colon > 0 and url[0].isascii() and url[0].isalpha()
    if starts_like_scheme and all(char in _SCHEME_CHARS for char in url[:colon]):
        scheme, url = url[:colon].lower(), url[colon + 1 :]
    if url[:2] == "//":
        end = min((i for i in (url.find(c, 2) for c in "/?#") if i >= 0), default=len(url))
        netloc, url = url[2:end], url[end:]
        _check_brackets(text, netloc)
    if "#" in url:
        url, fragment = url.split("#", 1)
    if "?" in url:
        url, query = url.split("?", 1)
    _check_nfkc(text, netloc)
    return _Parts(scheme, netloc, url, query, fragment)


def _join(parts: _Parts) -> str:
    """``urllib.parse.urlunsplit`` of Python 3.11.7 (``s3://`` → ``s3:/``, ``file:/x`` →
    ``file:///x``, ``s3:////x`` → ``s3://x``)."""
    scheme, netloc, path, query, fragment = parts
    if netloc or (scheme in _USES_NETLOC and path[:2] != "//"):
        if path and path[:1] != "/":
            path = "/" + path
        path = "//" + netloc + path
    text = f"{scheme}:{path}" if scheme else path
    if query:
        text += "?" + query
    if fragment:
        text += "#" + fragment
    return text


def _check_brackets(text: str, netloc: str) -> None:
    """``urlsplit``'s IPv6 checks: brackets must pair and hold an IPv6 or IPvFuture host."""
    if ("[" in netloc) != ("]" in netloc):
        raise AssetError(f"asset URI {_show(text)}: invalid IPv6 host (unpaired bracket)")
    if "[" not in netloc:
        return
    host = netloc.partition("[")[2].partition("]")[0]
    if host.startswith("v"):
        if not _IPV_FUTURE.match(host):
            raise AssetError(f"asset URI {_show(text)}: invalid IPvFuture host {host!r}")
        return
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise AssetError(f"asset URI {_show(text)}: {host!r} is not an IP address") from None
    if isinstance(address, ipaddress.IPv4Address):
        raise AssetError(f"asset URI {_show(text)}: an IPv4 address cannot be in brackets")


def _check_nfkc(text: str, netloc: str) -> None:
    """``urlsplit``'s ``_checknetloc``: no host characters that NFKC turns into ``/?#@:``."""
    if not netloc or netloc.isascii():
        return
    plain = netloc.replace("@", "").replace(":", "").replace("#", "").replace("?", "")
    folded = unicodedata.normalize("NFKC", plain)
    if folded != plain and any(char in folded for char in "/?#@:"):
        raise AssetError(
            f"asset URI {_show(text)}: the host contains characters that are invalid "
            "under NFKC normalization"
        )


def _loose_key(text: str) -> tuple[bool, str, str, str]:
    """What stays of a URI when scheme, host case and trailing slashes are ignored."""
    try:
        parts = _split(text)
    except AssetError:
        return (False, "", text.rstrip("/"), "")
    if not parts.scheme and not parts.netloc:
        return (False, "", text.rstrip("/"), "")
    return (True, parts.netloc.lower(), parts.path.rstrip("/"), parts.query)


def _show(value: str) -> str:
    """A value for a message, shortened when long."""
    return repr(value) if len(value) <= 80 else f"{value[:60]!r}... ({len(value)} characters)"
