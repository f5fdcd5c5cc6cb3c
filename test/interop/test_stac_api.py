"""Interoperability of the STAC API with real STAC clients, over every sample record (STAC,
ISO 19139, ISO 19115-3, Dublin Core) and generated ones: pystac-client searches by GET and POST
(paging through every result, every record as a pystac Item), its Collections and Features
methods at the STAC API root (/catalogue/stac) and every link it follows (collection, parent,
root, self); pystac hydration and the STAC core JSON Schemas for every item and collection;
stac-api-validator for every conformance class the STAC API root declares (plus its sort checks,
and its fields checks minus the findings where it contradicts the extension); GDAL's STACIT
driver over item searches.

Everything runs offline against 127.0.0.1: the STAC JSON Schemas come from the copy bundled with
pystac (STAC 1.1.0 core; extension schemas are not available offline and are not checked).
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pystac
import pytest
from jsonschema import Draft7Validator
from pystac.validation.local_validator import get_local_schema_cache
from pystac_client import Client
from pystac_client.stac_api_io import StacApiIO
from pystac_client.warnings import DoesNotConformTo, FallbackToPystac
from referencing import Registry, Resource

# Items the sample records put in each parent collection (the ISO collection records S2MSI1C and
# S2MSI2A and the STAC Collection sentinel-2-l2a are records of the catalogue too).
SAMPLE_COLLECTIONS = {"S2MSI1C": 12, "S2MSI2A": 11, "sentinel-2-l2a": 2}
# An area of interest over the Sentinel-2 tiles of the samples (lon 15–18, lat 46–50).
AOI = {
    "type": "Polygon",
    "coordinates": [[[14, 45], [18, 45], [18, 50], [14, 50], [14, 45]]],
}
# stac-api-validator findings that are known, explained gaps (README, STAC section):
KNOWN_VALIDATOR_ERRORS = {
    # The OpenAPI document (and so rel=service-desc) is added by a later issue.
    "/ : Link[rel=service-desc] must exist",
}
# stac-validator (which stac-api-validator runs on each collection and item of the Collections and
# Features classes) fetches the STAC JSON Schemas from schemas.stacspec.org, which the offline
# test machine cannot reach; those findings are the failed download, not a verdict. Every item
# and collection is checked against pystac's bundled core schemas by the tests below instead.
OFFLINE_SCHEMA_FINDING = re.compile(
    r"(failed stac-validator validation: .*'error_type': 'ConnectionError'"
    r"|is not a valid STAC object: HTTPSConnectionPool)"
    r".*schemas\.stacspec\.org"
)
# Conformance classes of the STAC API root that stac-api-validator checks.
STAC_ROOT_CLASSES = ["core", "item-search", "filter", "collections", "features"]
# Collections every sample loading gives: STAC Collections, ISO collection records named as
# parent by Items, and the catalogue itself.
SAMPLE_STAC_COLLECTIONS = {"metadata:main", "sentinel-2-l2a", "simple-collection"} | set(
    SAMPLE_COLLECTIONS
)


def search_all(
    root_url: str, method: str, **parameters: Any
) -> tuple[list[dict[str, Any]], int]:
    """Pages through a whole search with pystac-client; returns the items and numberMatched."""
    client = Client.open(root_url)
    search = client.search(method=method, **parameters)
    items = list(search.items_as_dicts())
    matched = search.matched()
    assert matched is not None
    return items, matched


def bundled_validator(kind: str) -> tuple[Draft7Validator, str]:
    """A validator for pystac's bundled STAC core schema of `kind` (item, collection), and its
    STAC version."""
    schemas = get_local_schema_cache()
    registry: Registry = Registry().with_resources(
        (uri, Resource.from_contents(schema)) for uri, schema in schemas.items()
    )
    uri = next(u for u in schemas if u.endswith(f"{kind}-spec/json-schema/{kind}.json"))
    version = re.search(r"/v([^/]+)/", uri)
    assert version is not None
    return Draft7Validator(schemas[uri], registry=registry), version.group(1)


def schema_errors(validator: Draft7Validator, version: str, stac: dict[str, Any]) -> list[str]:
    # The bundled schemas are STAC 1.1.0, whose core rules (datetime or start/end, bbox with
    # geometry, extent, links, assets, license pattern) are those of 1.0.0.
    checked = {**stac, "stac_version": version}
    return [error.message for error in validator.iter_errors(checked)]


def assert_each_once(items: list[dict[str, Any]], matched: int) -> None:
    ids = [item["id"] for item in items]
    assert len(ids) == matched
    assert len(set(ids)) == matched


def test_landing_page_is_a_stac_api(root_url: str) -> None:
    client = Client.open(root_url)
    assert client.id == "cairn"
    assert client.conforms_to("ITEM_SEARCH")
    assert client.conforms_to("FILTER")
    assert client.conforms_to("SORT")
    assert client.conforms_to("FIELDS")
    queryables = client.get_queryables()
    assert {"id", "collection", "geometry", "datetime", "eo:cloud_cover"} <= set(
        queryables["properties"]
    )


@pytest.mark.parametrize("method, limit", [("GET", 7), ("POST", 9)])
def test_search_pages_through_every_item(
    root_url: str, record_count: int, method: str, limit: int
) -> None:
    items, matched = search_all(root_url, method, limit=limit)
    assert matched == record_count
    assert_each_once(items, matched)


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_filtered_searches_page_through_every_match(root_url: str, method: str) -> None:
    for collection, count in SAMPLE_COLLECTIONS.items():
        items, matched = search_all(root_url, method, collections=[collection], limit=5)
        assert matched == count
        assert_each_once(items, matched)
        assert {item["collection"] for item in items} == {collection}

    items, matched = search_all(
        root_url,
        method,
        intersects=AOI,
        datetime="2019-09-10T00:00:00Z/2019-09-11T00:00:00Z",
        limit=4,
    )
    assert matched >= SAMPLE_COLLECTIONS["S2MSI1C"] + SAMPLE_COLLECTIONS["S2MSI2A"]
    assert_each_once(items, matched)

    items, matched = search_all(root_url, method, bbox=[170, -10, -170, 10], limit=3)
    assert "20201211_223832_CS21" in {item["id"] for item in items}
    assert_each_once(items, matched)


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_filter_sortby_and_fields(root_url: str, method: str) -> None:
    language = "cql2-text" if method == "GET" else "cql2-json"
    cloudy_filter: Any = (
        "collection = 'S2MSI2A' AND eo:cloud_cover < 50"
        if method == "GET"
        else {
            "op": "and",
            "args": [
                {"op": "=", "args": [{"property": "collection"}, "S2MSI2A"]},
                {"op": "<", "args": [{"property": "eo:cloud_cover"}, 50]},
            ],
        }
    )
    items, matched = search_all(
        root_url,
        method,
        filter=cloudy_filter,
        filter_lang=language,
        sortby="-properties.eo:cloud_cover",
        limit=2,
    )
    assert 0 < matched < SAMPLE_COLLECTIONS["S2MSI2A"]
    assert_each_once(items, matched)
    clouds = [item["properties"]["eo:cloud_cover"] for item in items]
    assert all(cloud < 50 for cloud in clouds)
    assert clouds == sorted(clouds, reverse=True)

    items, _ = search_all(
        root_url,
        method,
        collections=["S2MSI1C"],
        fields=["id", "-geometry", "+properties.eo:cloud_cover"],
        limit=20,
    )
    for item in items:
        assert "geometry" not in item
        assert set(item["properties"]) == {"datetime", "eo:cloud_cover"}


@pytest.mark.parametrize(
    "method, q", [("GET", "ozone,nosuchword"), ("POST", ["ozone", "nosuchword"])]
)
def test_free_text(root_url: str, method: str, q: Any) -> None:
    # pystac-client's ItemSearch has no `q`; its paging I/O follows the next links all the same.
    pages = list(StacApiIO().get_pages(f"{root_url}/search", method, {"q": q, "limit": 1}))
    ids = [item["id"] for page in pages for item in page["features"]]
    assert "woudc-total-column-ozone-totalozone" in ids
    assert len(ids) == len(set(ids)) == pages[0]["numberMatched"]


def test_every_item_hydrates_and_matches_the_stac_core_schema(root_url: str) -> None:
    items, _ = search_all(root_url, "GET", limit=100)
    validator, version = bundled_validator("item")
    for item in items:
        pystac.Item.from_dict(copy.deepcopy(item))
        errors = schema_errors(validator, version, item)
        assert errors == [], f"{item['id']}: {errors}"


@pytest.mark.parametrize("root", ["records landing page", "STAC API root"])
def test_search_items_gives_every_record_as_a_pystac_item(
    root_url: str, stac_url: str, record_count: int, root: str
) -> None:
    # Issue 28: `search().items()` crashed on the Dublin Core records without any date
    # ("If datetime is None, a start_datetime and end_datetime must be supplied").
    url = root_url if root == "records landing page" else stac_url
    search = Client.open(url).search(limit=100)
    items = list(search.items())
    assert len(items) == search.matched() == record_count
    assert len({item.id for item in items}) == record_count
    undated = [item for item in items if item.properties.get("cairn:time_fallback") == "unknown"]
    assert undated, "the Dublin Core samples without any date"
    for item in undated:
        assert item.datetime is None
        assert item.common_metadata.start_datetime is not None
        assert item.common_metadata.end_datetime is not None
    for item in items:
        # A time that is not the record's temporal extent is always marked.
        fallback = item.properties.get("cairn:time_fallback")
        assert fallback in {None, "unknown", "resourceCreated", "resourcePublished",
                            "resourceUpdated", "created", "updated"}


def test_collections_and_features_through_pystac_client(stac_url: str, record_count: int) -> None:
    # Issue 28: Client.get_collection('sentinel-2-l2a') returned metadata:main, with the
    # warnings "DoesNotConformTo: COLLECTIONS, FEATURES". At the STAC API root, no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        client = Client.open(stac_url)
        assert client.conforms_to("COLLECTIONS")
        assert client.conforms_to("FEATURES")
        collection = client.get_collection("sentinel-2-l2a")
        assert collection is not None and collection.id == "sentinel-2-l2a"
        listed = [c.id for c in client.get_collections()]
        assert len(listed) == len(set(listed))
        assert SAMPLE_STAC_COLLECTIONS <= set(listed)
        for name, count in SAMPLE_COLLECTIONS.items():
            collection = client.get_collection(name)
            assert collection is not None and collection.id == name
            items = list(collection.get_items())
            assert len(items) == count
            assert {item.collection_id for item in items} == {name}
            found = collection.get_item(items[-1].id)  # /collections/{id}/items/{itemId}
            assert found is not None and found.id == items[-1].id
            assert collection.get_item("no-such-item") is None
        main = client.get_collection("metadata:main")
        assert main is not None and main.id == "metadata:main"
        # The catalogue collection's items are every record (each keeps its own collection).
        assert sum(1 for _ in main.get_items()) == record_count
        assert client.get_collection("no-such-collection") is None


def test_every_collection_is_a_valid_stac_collection(stac_url: str) -> None:
    validator, version = bundled_validator("collection")
    pages = list(StacApiIO().get_pages(f"{stac_url}/collections?limit=7"))
    collections = [collection for page in pages for collection in page["collections"]]
    assert len(collections) == pages[0]["numberMatched"]
    for collection in collections:
        pystac.Collection.from_dict(copy.deepcopy(collection))
        errors = schema_errors(validator, version, collection)
        assert errors == [], f"{collection['id']}: {errors}"


def test_every_link_a_client_follows_resolves(stac_url: str, record_count: int) -> None:
    # Issue 28: an item's collection/parent link led to an OGC record, not a STAC Collection.
    client = Client.open(stac_url)
    items = list(client.search(limit=100).items())
    assert len(items) == record_count
    in_collections = 0
    for item in items:
        root = item.get_root()
        assert root is not None and root.id == "cairn"
        assert item.get_self_href() is not None
        again = pystac.Item.from_file(item.get_self_href())
        assert again.id == item.id
        if item.collection_id is None:
            # A record without a parent, or whose parent is not in the catalogue.
            assert item.get_single_link("collection") is None
            assert item.get_single_link("parent") is None
            continue
        in_collections += 1
        collection = item.get_collection()
        assert isinstance(collection, pystac.Collection)
        assert collection.id == item.collection_id
        parent = item.get_parent()
        assert parent is not None and parent.id == item.collection_id
    assert in_collections == sum(SAMPLE_COLLECTIONS.values())


def test_records_landing_page_leads_stac_clients_to_the_stac_api_root(root_url: str) -> None:
    # /catalogue is the OGC API – Records landing page (its `data` link lists Records
    # collections) and a STAC Catalog with item search; it does not declare STAC Collections, so
    # pystac-client warns there and falls back to child links: it must never answer with the
    # wrong collection. Its child is the STAC API root, where the collection is found.
    client = Client.open(root_url)
    assert not client.conforms_to("COLLECTIONS")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = client.get_collection("sentinel-2-l2a")
    # Exactly the two warnings pystac-client gives for a Catalog without Collections.
    assert {type(w.message) for w in caught} == {DoesNotConformTo, FallbackToPystac}
    assert found is None or found.id == "sentinel-2-l2a"
    child = client.get_single_link("child")
    assert child is not None and child.href.rstrip("/").endswith("/catalogue/stac")
    stac_root = Client.open(child.href)
    collection = stac_root.get_collection("sentinel-2-l2a")
    assert collection is not None and collection.id == "sentinel-2-l2a"


def parse_validator_output(output: str) -> tuple[list[str], list[str]]:
    """The `- …` lines under "Warnings:" and "Errors:" of stac-api-validator's report."""
    warnings: list[str] = []
    errors: list[str] = []
    section: list[str] | None = None
    for line in output.splitlines():
        if line.startswith("Warnings:"):
            section = warnings
        elif line.startswith("Errors:"):
            section = errors
        elif line.startswith("- ") and section is not None:
            section.append(line[2:].strip())
    return warnings, errors


def run_validator(
    root_url: str, classes: list[str], *options: str
) -> tuple[list[str], list[str], str]:
    """Runs stac-api-validator; returns its warnings, its errors and its whole output."""
    command = [str(Path(sys.executable).parent / "stac-api-validator"), "--root-url", root_url]
    for name in classes:
        command += ["--conformance", name]
    command += ["--collection", "S2MSI1C", *options]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    output = run.stdout + run.stderr
    assert "Errors:" in run.stdout, output
    warnings, errors = parse_validator_output(run.stdout)
    return warnings, errors, output


def test_stac_api_validator_reports_no_errors(root_url: str) -> None:
    warnings, errors, output = run_validator(
        root_url, ["core", "item-search", "filter"], "--geometry", json.dumps(AOI)
    )
    report = os.environ.get("CAIRN_VALIDATOR_REPORT")
    if report:
        Path(report).write_text(output)
    print("\nstac-api-validator warnings:", *warnings, sep="\n  ")
    print("stac-api-validator errors:", *errors, sep="\n  ")
    unexplained = [error for error in errors if error not in KNOWN_VALIDATOR_ERRORS]
    assert unexplained == [], output


def test_stac_api_validator_on_the_stac_api_root(stac_url: str) -> None:
    warnings_, errors, output = run_validator(
        stac_url, STAC_ROOT_CLASSES, "--geometry", json.dumps(AOI)
    )
    print("\nstac-api-validator warnings (STAC API root):", *warnings_, sep="\n  ")
    unexplained = [
        error
        for error in errors
        if error not in KNOWN_VALIDATOR_ERRORS and not OFFLINE_SCHEMA_FINDING.search(error)
    ]
    assert unexplained == [], output
    # The Collections and Features classes were checked (their requests were made).
    assert "[Collections]" in output and "[Features]" in output


def gdal_subdatasets(url: str) -> set[str]:
    """The asset names GDAL's STACIT driver offers for a STAC item search URL."""
    gdalinfo = shutil.which("gdalinfo")
    assert gdalinfo, "gdalinfo not found: install gdal-bin (GDAL's STACIT driver)"
    run = subprocess.run(
        [gdalinfo, "-json", f'STACIT:"{url}"'], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    subdatasets = json.loads(run.stdout)["metadata"].get("SUBDATASETS", {})
    return {
        value.split(":asset=")[1] for name, value in subdatasets.items() if name.endswith("_NAME")
    }


@pytest.mark.parametrize("collection", sorted(SAMPLE_COLLECTIONS))
def test_gdal_stacit_reads_item_searches(root_url: str, collection: str) -> None:
    # STACIT pages through the search (2 items a page) and offers one subdataset per data asset.
    items = list(Client.open(root_url).search(collections=[collection]).items())
    data_assets = {
        key for item in items for key, asset in item.assets.items() if "data" in (asset.roles or [])
    }
    assert data_assets
    assert gdal_subdatasets(f"{root_url}/search?collections={collection}&limit=2") == data_assets


def test_stac_api_validator_sort_extension(root_url: str) -> None:
    warnings, errors, output = run_validator(root_url, ["item-search#sort"])
    assert errors == [], output


# stac-api-validator 0.6.8 expects `include` to return only the included fields; the Fields
# extension adds includes to the default set (type, stac_version, id, geometry, bbox, links,
# assets, properties.datetime), which Cairn follows. These are the only findings it may give.
FIELDS_SPEC_CONFLICTS = [
    re.compile(r"response contained more than 5 extra fields"),
    re.compile(r"'-properties,\+properties\.eo:cloud_cover'.* contained 'geometry', but should"),
    re.compile(r"'include': \['properties\.eo:cloud_cover'\]\}\} response contained 'geometry'"),
]


def test_stac_api_validator_fields_extension(root_url: str) -> None:
    _, errors, output = run_validator(
        root_url, ["item-search#fields"], "--fields-nested-property", "properties.eo:cloud_cover"
    )
    unexplained = [
        error
        for error in errors
        if not any(pattern.search(error) for pattern in FIELDS_SPEC_CONFLICTS)
    ]
    assert unexplained == [], output
