"""Interoperability of the OGC API - Records endpoints with OWSLib's client
(owslib.ogcapi.records.Records): the landing page, conformance and API definition, the catalogue
collection, its queryables, searches with q, bbox, a CQL2 text filter (GET) and a CQL2 JSON filter
(POST), sorting and paging, and reading one record.

Runs against the real API started by conftest.py (the repository's STAC samples and generated records).
"""

from __future__ import annotations

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
