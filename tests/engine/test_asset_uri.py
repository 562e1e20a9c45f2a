"""Asset names, URIs, references, aliases, near misses and conflicts (URI-1 .. URI-6)."""

from __future__ import annotations

import pytest

from explorer.engine.assets.uri import (
    PASSWORD_WARNING,
    AliasIdentity,
    AssetError,
    AssetIdentity,
    AssetRef,
    Conflict,
    asset_alias,
    asset_ref,
    conflicts,
    make_asset,
    near_misses,
    normalize_uri,
)
from explorer.engine.errors import EngineError


def asset(name: str | None = None, uri: str | None = None) -> AssetIdentity:
    identity, _warnings = make_asset(name, uri)
    return identity


class TestUri3Table:
    """The URI-3 table of SEMANTICS.md, row by row: the stored URI and the default name."""

    @pytest.mark.parametrize(
        ("written", "stored"),
        [
            pytest.param("s3://bucket/path/", "s3://bucket/path", id="trailing-slash-stripped"),
            pytest.param("S3://Bucket/Path//", "s3://Bucket/Path", id="scheme-lowered-host-kept"),
            pytest.param("S3://x", "s3://x/", id="empty-path-becomes-slash"),
            pytest.param(
                "s3://bucket/path?b=2&a=1#frag",
                "s3://bucket/path?a=1&b=2",
                id="query-sorted-fragment-dropped",
            ),
            pytest.param(
                "s3://user:pw@bucket/key", "s3://bucket/key", id="password-drops-userinfo"
            ),
            pytest.param("file:///tmp/x/", "file:///tmp/x", id="file-trailing-slash"),
            pytest.param(
                "x-my-thing://Foo/Bar/?z=1#f", "x-my-thing://Foo/Bar/?z=1#f", id="x-scheme-verbatim"
            ),
            pytest.param("example asset/", "example asset/", id="no-scheme-verbatim"),
            pytest.param("example_asset", "example_asset", id="plain-name-verbatim"),
            pytest.param("//example/asset", "//example/asset", id="netloc-without-scheme-verbatim"),
            pytest.param("s3://", "s3:/", id="bare-scheme-accepted-without-amazon-provider"),
        ],
    )
    def test_the_stored_uri_is_normalized_and_the_name_is_as_written(
        self, written: str, stored: str
    ) -> None:
        identity = asset(uri=written)
        assert identity.uri == stored
        assert identity.name == written
        assert normalize_uri(written) == stored

    def test_a_password_is_dropped_with_a_warning(self) -> None:
        identity, warnings = make_asset(uri="s3://user:pw@bucket/key")
        assert identity.uri == "s3://bucket/key"
        assert warnings == [PASSWORD_WARNING]

    def test_a_user_without_password_is_kept_silently(self) -> None:
        assert make_asset(uri="s3://user:@bucket/key") == (asset(uri="s3://user:@bucket/key"), [])
        assert asset(uri="s3://user@bucket/key").uri == "s3://user@bucket/key"

    def test_query_pairs_without_value_are_dropped_and_spaces_become_plus(self) -> None:
        assert normalize_uri("s3://b/k?flag&a=&q=hello%20world") == "s3://b/k?q=hello+world"

    def test_urlunsplit_quirks_are_reproduced(self) -> None:
        assert normalize_uri("s3:///key") == "s3:/key"
        assert normalize_uri("file:/tmp/x") == "file:///tmp/x"
        assert normalize_uri("s3:////x") == "s3://x"

    def test_nothing_else_is_decoded_or_resolved(self) -> None:
        assert normalize_uri("s3://bucket/a/../b") == "s3://bucket/a/../b"
        assert normalize_uri("s3://bucket/%7Euser") == "s3://bucket/%7Euser"

    def test_only_file_uris_have_an_aip60_form(self) -> None:
        assert asset(uri="file:///tmp/x/").normalized_uri == "file:///tmp/x"
        assert asset(uri="s3://bucket/key").normalized_uri is None


class TestXSchemes:
    """``x-`` schemes are kept byte for byte, scheme case included (URI-3, URI-5)."""

    @pytest.mark.parametrize(
        "written",
        [
            "x-custom://Anything/Goes/",
            "X-Custom://A/B/",
            "x-://a",
            "x-airflow://a",
            "x-a://u:pw@h/p?b=2&a=1#f",
        ],
    )
    def test_x_schemes_are_untouched(self, written: str) -> None:
        identity, warnings = make_asset(uri=written)
        assert identity.uri == written
        assert warnings == []


class TestConstruction:
    """URI-1 defaults and URI-4 refusals."""

    def test_name_defaults_to_uri_and_uri_to_name(self) -> None:
        assert asset(name="orders") == AssetIdentity("orders", "orders")
        assert asset(uri="S3://x").name == "S3://x"

    def test_group_follows_the_kind(self) -> None:
        assert make_asset("a", kind="dataset")[0].group == "dataset"
        assert make_asset("a", kind="model")[0].group == "model"
        assert make_asset("a", group="")[0].group == ""

    def test_identity_is_name_and_uri(self) -> None:
        assert make_asset("a", "s3://b/p", group="g1")[0] == make_asset("a", "s3://b/p/")[0]
        assert asset("x", "s3://b/p/") == asset("x", "s3://b/p")

    @pytest.mark.parametrize(
        ("name", "uri"),
        [
            pytest.param(None, None, id="neither"),
            pytest.param("", None, id="empty-name"),
            pytest.param("orders", "", id="empty-uri"),
            pytest.param(None, " ", id="whitespace"),
            pytest.param(None, "x" * 1501, id="too-long"),
            pytest.param(None, "AIRFLOW://x", id="reserved-scheme"),
            pytest.param("self", "s3://b/k", id="name-self"),
            pytest.param(None, "context", id="name-context"),
            pytest.param(None, "http://[::1/x", id="unpaired-bracket"),
        ],
    )
    def test_refusals(self, name: str | None, uri: str | None) -> None:
        with pytest.raises(AssetError):
            make_asset(name, uri)

    def test_a_uri_that_grows_past_the_limit_when_normalized_is_refused(self) -> None:
        with pytest.raises(AssetError, match="uri cannot exceed 1500"):
            make_asset("a", "s3://" + "b" * 1495)

    def test_refusals_are_engine_errors_with_a_sentence(self) -> None:
        with pytest.raises(EngineError, match="reserved"):
            make_asset(uri="airflow://dag/task")

    def test_a_non_string_name_is_refused_but_a_uri_is_stringified(self) -> None:
        with pytest.raises(AssetError, match="must be a string"):
            make_asset(name=5)  # type: ignore[arg-type]
        assert make_asset(uri=123)[0] == AssetIdentity("123", "123")  # type: ignore[arg-type]

    def test_non_ascii_is_accepted(self) -> None:
        assert asset("été", "s3://bücket/ключ").uri == "s3://bücket/ключ"


class TestRefsAndAliases:
    def test_a_uri_reference_is_kept_verbatim(self) -> None:
        assert asset_ref(uri="s3://b/p/") == AssetRef(uri="s3://b/p/")
        assert asset_ref(uri="airflow://x") == AssetRef(uri="airflow://x")

    def test_a_name_reference_is_not_validated_beyond_truthiness(self) -> None:
        assert asset_ref(name=" ") == AssetRef(name=" ")
        assert asset_ref(name="self") == AssetRef(name="self")

    @pytest.mark.parametrize(
        "kwargs",
        [{}, {"name": ""}, {"uri": ""}, {"name": "a", "uri": "b"}, {"name": 5}],
        ids=["nothing", "empty-name", "empty-uri", "both", "not-a-string"],
    )
    def test_bad_references_are_refused(self, kwargs: dict[str, object]) -> None:
        with pytest.raises(AssetError):
            asset_ref(**kwargs)

    def test_aliases_may_be_called_self_and_have_an_empty_group(self) -> None:
        assert asset_alias("self") == AliasIdentity("self")
        assert asset_alias("a", group="").group == ""

    @pytest.mark.parametrize("name", ["", " ", "x" * 1501])
    def test_bad_alias_names_are_refused(self, name: str) -> None:
        with pytest.raises(AssetError):
            asset_alias(name)


class TestNearMisses:
    """Spellings a consumer probably meant when nothing produces what it waits on."""

    KNOWN = (
        "s3://bucket/orders",
        "S3://bucket/orders",
        "s3://BUCKET/orders",
        "gs://bucket/orders",
        "s3://bucket/orders/",
        "s3://bucket/Orders",
        "s3://bucket/orders/2024",
        "orders",
    )

    def test_trailing_slash_scheme_case_host_case_and_scheme_are_near_misses(self) -> None:
        assert near_misses("s3://bucket/orders", self.KNOWN) == [
            "S3://bucket/orders",
            "s3://BUCKET/orders",
            "gs://bucket/orders",
            "s3://bucket/orders/",
        ]

    def test_a_verbatim_reference_with_a_trailing_slash_finds_the_stored_uri(self) -> None:
        assert near_misses("s3://bucket/orders/", ["s3://bucket/orders"]) == ["s3://bucket/orders"]

    def test_plain_names_differ_only_by_trailing_slashes(self) -> None:
        assert near_misses("orders/", self.KNOWN) == ["orders"]

    def test_no_repeats_and_no_exact_match(self) -> None:
        assert near_misses("s3://b/p", ["s3://b/p", "s3://b/p/", "s3://b/p/"]) == ["s3://b/p/"]


class TestConflicts:
    """URI-2 and URI-6: names and URIs are unique among active assets."""

    def test_the_trailing_slash_trap(self) -> None:
        with_slash, without = asset(uri="s3://b/p/"), asset(uri="s3://b/p")
        assert with_slash.uri == without.uri
        assert with_slash.name != without.name
        assert conflicts([with_slash, without]) == [Conflict(without, "uri", with_slash)]

    def test_the_first_declared_wins(self) -> None:
        first, second = asset("orders", "s3://b/one"), asset("orders", "s3://b/two")
        assert conflicts([second, first]) == [Conflict(first, "name", second)]

    def test_the_same_asset_twice_is_not_a_conflict(self) -> None:
        assert conflicts([asset("x", "s3://b/p/"), asset("x", "s3://b/p")]) == []

    def test_an_already_active_asset_always_wins(self) -> None:
        old, new = asset("a", "s3://b/p"), asset("b", "s3://b/p")
        assert conflicts([new], already_active=[old]) == [Conflict(new, "uri", old)]

    def test_an_inactive_asset_claims_nothing(self) -> None:
        a, b, c = asset("n1", "u1"), asset("n2", "u1"), asset("n2", "u2")
        assert conflicts([a, b, c]) == [Conflict(b, "uri", a)]

    def test_the_name_is_checked_before_the_uri(self) -> None:
        a, b = asset("n1", "u1"), asset("n2", "u2")
        clash = asset("n1", "u2")
        assert conflicts([a, b, clash]) == [Conflict(clash, "name", a)]

    def test_the_message_is_airflows_dag_warning(self) -> None:
        (conflict,) = conflicts([asset(uri="s3://b/p/"), asset(uri="s3://b/p")])
        assert conflict.message == (
            'Cannot activate asset Asset(name="s3://b/p", uri="s3://b/p", group="asset"); '
            "uri is already associated to 's3://b/p/'"
        )
