"""Interoperability of the OGC API - Records endpoints with OWSLib's client
(owslib.ogcapi.records.Records): the landing page, conformance and API definition, the catalogue
collection, its queryables, searches with q, bbox, a CQL2 text filter (GET) and a CQL2 JSON filter
(POST), sorting and paging, and reading one record.

Runs against the real API started by conftest.py (the repository's STAC samples and generated records).
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import pytest
import requests
from owslib.ogcapi.records import Records

CATALOGUE = "metadata:main"
RECORDS_CONF = "http://www.opengis.net/spec/ogcapi-records-1/1.0/conf"
# An area over the Sentinel-2 tiles of the samples (lon 14-18, lat 45-50).
AOI = [14, 45, 18, 50]


@pytest.fixture(scope="session")
def records(root_url: str) -> Any:
    # OWSLib joins relative paths onto the landing page URL: it must end with a slash.
    return Records(f"{root_url}/", timeout=60)


def footprint_box(feature: dict[str, Any]) -> list[float] | None:
    """The feature's bbox, or the box around its geometry's coordinates."""
    if feature.get("bbox"):
        return list(feature["bbox"][:2]) + list(feature["bbox"][-2:])
    geometry = feature.get("geometry")
    if not geometry:
        return None
    points: list[list[float]] = []

    def walk(node: Any) -> None:
        if isinstance(node, list) and node and isinstance(node[0], (int, float)):
            points.append(node)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(geometry["coordinates"])
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return [min(xs), min(ys), max(xs), max(ys)]


def intersects(box: list[float], aoi: list[float]) -> bool:
    west, south, east, north = box
    return not (east < aoi[0] or west > aoi[2] or north < aoi[1] or south > aoi[3])


def test_landing_page_conformance_and_api_definition(records: Any) -> None:
    rels = {link["rel"] for link in records.links}
    assert {"self", "service-desc", "service-doc", "conformance", "data"} <= rels
    conformance = records.conformance()["conformsTo"]
    assert f"{RECORDS_CONF}/searchable-catalog" in conformance
    assert f"{RECORDS_CONF}/record-core" in conformance
    api = records.api()
    assert api["openapi"].startswith("3.0")
    assert "/collections/{collectionId}/items" in api["paths"]


def test_lists_the_catalogue(records: Any, record_count: int) -> None:
    assert records.records() == [CATALOGUE]
    collection = records.collection(CATALOGUE)
    assert collection["itemType"] == "record"
    assert collection["type"] == "Collection"
    everything = records.collection_items(CATALOGUE, limit=1)
    assert everything["numberMatched"] == record_count


def test_reads_queryables(records: Any) -> None:
    queryables = records.collection_queryables(CATALOGUE)
    assert queryables["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert queryables["type"] == "object"
    assert queryables["properties"]["id"]["x-ogc-role"] == "id"
    assert queryables["properties"]["geometry"]["x-ogc-role"] == "primary-geometry"
    assert {"title", "type", "updated", "cloudCover"} <= set(queryables["properties"])


def test_searches_with_q(records: Any) -> None:
    result = records.collection_items(CATALOGUE, q="sentinel", limit=100)
    assert result["numberMatched"] > 0
    assert result["numberReturned"] == len(result["features"])
    for feature in result["features"]:
        assert "sentinel" in str(feature).lower()
    # Commas separate alternatives: the union is at least as large as each part.
    either = records.collection_items(CATALOGUE, q="sentinel,elevation", limit=1)
    assert either["numberMatched"] >= result["numberMatched"]


def test_searches_with_bbox(records: Any) -> None:
    result = records.collection_items(CATALOGUE, bbox=AOI, limit=100)
    everything = records.collection_items(CATALOGUE, limit=1)
    assert 0 < result["numberMatched"] < everything["numberMatched"]
    for feature in result["features"]:
        box = footprint_box(feature)
        assert box is None or intersects(box, AOI), feature["id"]


def test_searches_with_a_cql2_text_filter(records: Any) -> None:
    result = records.collection_items(
        CATALOGUE, filter="cloudCover < 20 AND CASEI(platform) LIKE CASEI('sentinel%')", limit=100
    )
    assert result["numberMatched"] > 0
    for feature in result["features"]:
        properties = feature["properties"]
        assert properties["cloudCover"] < 20
        assert properties["platform"].lower().startswith("sentinel")


def test_searches_with_a_cql2_json_filter_by_post(records: Any) -> None:
    cql = {"op": "=", "args": [{"property": "type"}, "service"]}
    result = records.collection_items(CATALOGUE, cql=cql, limit=100)
    by_parameter = records.collection_items(CATALOGUE, type="service", limit=1)
    assert result["numberMatched"] == by_parameter["numberMatched"] > 0
    assert {feature["properties"]["type"] for feature in result["features"]} == {"service"}


def test_sorts_and_pages(records: Any) -> None:
    first = records.collection_items(CATALOGUE, sortby=("updated", "desc"), limit=5)
    second = records.collection_items(CATALOGUE, sortby=("updated", "desc"), limit=5, offset=5)
    updated = [f["properties"].get("updated", "") for f in first["features"] + second["features"]]
    assert updated == sorted(updated, reverse=True)
    assert not {f["id"] for f in first["features"]} & {f["id"] for f in second["features"]}
    assert any(link["rel"] == "next" for link in first["links"])


def test_reads_a_record(records: Any) -> None:
    page = records.collection_items(CATALOGUE, q="sentinel", limit=1)
    identifier = page["features"][0]["id"]
    record = records.collection_item(CATALOGUE, identifier)
    assert record["id"] == identifier
    assert record["type"] == "Feature"
    rels = {link["rel"] for link in record["links"]}
    assert {"self", "alternate", "collection"} <= rels
    assert "geometry" in record


def test_reports_errors(records: Any, root_url: str) -> None:
    with pytest.raises(RuntimeError, match="NOT_FOUND"):
        records.collection_item(CATALOGUE, "no-such-record")
    with pytest.raises(RuntimeError, match="bbox"):
        records.collection_items(CATALOGUE, bbox=[1, 2, 3])
    response = requests.get(f"{root_url}/collections/{CATALOGUE}/items", params={"bogus": 1}, timeout=60)
    assert response.status_code == 400
    assert set(response.json()) == {"code", "description"}


# --- Every sample format loaded (serve.ts --samples all): what real clients found.

CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
EPSG4326 = "http://www.opengis.net/def/crs/EPSG/0/4326"
STROKED = str.maketrans({"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D"})


def sort_key(text: str) -> str:
    """Case- and accent-insensitive, as users expect titles to sort (independent of Cairn's code)."""
    stripped = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    return unicodedata.normalize("NFKC", stripped.translate(STROKED)).upper().lower()


@pytest.fixture(scope="module")
def all_records(all_samples_server: dict[str, Any]) -> Any:
    return Records(f"{all_samples_server['url']}/", timeout=60)


@pytest.fixture(scope="module")
def all_url(all_samples_server: dict[str, Any]) -> str:
    return str(all_samples_server["url"])


@pytest.fixture(scope="module")
def every_feature(all_records: Any, all_samples_server: dict[str, Any]) -> list[dict[str, Any]]:
    features: list[dict[str, Any]] = []
    while True:
        page = all_records.collection_items(CATALOGUE, limit=100, offset=len(features))
        features += page["features"]
        if not page["features"] or len(features) >= page["numberMatched"]:
            break
    assert len(features) == all_samples_server["records"]
    return features


def test_every_record_with_a_footprint_has_a_geometry(every_feature: list[dict[str, Any]]) -> None:
    with_box = [feature for feature in every_feature if feature.get("bbox")]
    assert len(with_box) > 27
    assert [feature["id"] for feature in with_box if feature["geometry"] is None] == []
    for feature in with_box:
        west, south, east, north = feature["bbox"][:2] + feature["bbox"][-2:]
        box = footprint_box({"geometry": feature["geometry"]})
        assert box is not None
        if west <= east:
            # The geometry lies within the box (equal to it for records that only have a box).
            assert west - 1e-9 <= box[0] and box[2] <= east + 1e-9, feature["id"]
            assert south - 1e-9 <= box[1] and box[3] <= north + 1e-9, feature["id"]


def test_crs_bbox_crs_and_content_crs(all_records: Any, all_url: str) -> None:
    collection = all_records.collection(CATALOGUE)
    assert collection["crs"] == [CRS84, EPSG4326]
    assert collection["storageCrs"] == CRS84
    lonlat = all_records.collection_items(CATALOGUE, bbox=AOI, limit=100)
    assert all_records.response_headers["Content-Crs"] == f"<{CRS84}>"
    latlon_box = [AOI[1], AOI[0], AOI[3], AOI[2]]
    latlon = all_records.collection_items(
        CATALOGUE, bbox=latlon_box, limit=100, crs=EPSG4326, **{"bbox-crs": EPSG4326}
    )
    assert all_records.response_headers["Content-Crs"] == f"<{EPSG4326}>"
    assert latlon["numberMatched"] == lonlat["numberMatched"] > 0
    for a, b in zip(lonlat["features"], latlon["features"]):
        assert a["id"] == b["id"]
        if a.get("bbox"):
            assert b["bbox"] == [a["bbox"][1], a["bbox"][0], a["bbox"][3], a["bbox"][2]]
    # EPSG:4326 given as bbox-crs alone, with CRS84 output (as QGIS does).
    same = all_records.collection_items(CATALOGUE, bbox=latlon_box, limit=1, **{"bbox-crs": EPSG4326})
    assert same["numberMatched"] == lonlat["numberMatched"]


def test_properties_skip_geometry_and_lang(all_records: Any) -> None:
    page = all_records.collection_items(
        CATALOGUE, properties="title,type", skipGeometry="true", lang="en", limit=50
    )
    assert page["numberReturned"] == 50
    for feature in page["features"]:
        assert feature["geometry"] is None
        assert set(feature["properties"]) <= {"title", "type"}
        assert "type" in feature["properties"]


def test_filter_on_a_property_that_is_not_a_queryable_is_a_400(all_records: Any) -> None:
    with pytest.raises(RuntimeError, match=r'nosuchproperty.{0,3} is not a queryable'):
        all_records.collection_items(CATALOGUE, filter="nosuchproperty = 'x'")
    with pytest.raises(RuntimeError, match="not a sortable property"):
        all_records.collection_items(CATALOGUE, sortby=("nosuchproperty", "asc"))


def test_post_stac_style_and_pygeoapi_bodies(all_records: Any, all_url: str) -> None:
    cql = {"op": "=", "args": [{"property": "type"}, "service"]}
    expected = all_records.collection_items(CATALOGUE, filter="type = 'service'", limit=1)["numberMatched"]
    assert expected > 0
    items = f"{all_url}/collections/{CATALOGUE}/items"
    stac = requests.post(items, json={"filter": cql, "filter-lang": "cql2-json"}, timeout=60)
    assert stac.status_code == 200, stac.text
    assert stac.json()["numberMatched"] == expected
    pygeoapi = requests.post(
        items, data=json.dumps(cql), headers={"Content-Type": "application/query-cql-json"}, timeout=60
    )
    assert pygeoapi.status_code == 200, pygeoapi.text
    assert pygeoapi.json()["numberMatched"] == expected


def test_sorts_titles_case_and_accent_insensitively(all_records: Any) -> None:
    for order in ("asc", "desc"):
        titles: list[str] = []
        while True:
            page = all_records.collection_items(
                CATALOGUE, sortby=("title", order), limit=100, offset=len(titles)
            )
            titles += [f["properties"].get("title") for f in page["features"]]
            if len(titles) >= page["numberMatched"]:
                break
        # Records without a title (served with an empty one, as the Records schema requires a
        # title) come last in both directions.
        present = [title for title in titles if title]
        assert titles[: len(present)] == present
        keys = [sort_key(title) for title in present]
        assert keys == sorted(keys, reverse=order == "desc")
        assert any(sort_key(t) != t for t in present)
