"""Interoperability of the OGC API - Records items with GDAL's OAPIF driver (ogrinfo, ogr2ogr;
what QGIS uses for OGC API - Features): every record comes through, with a geometry whenever the
record has a footprint (records with only a bounding box get its polygon), the page size the
OpenAPI document allows, and attribute filters sent to the server as CQL text.

Runs against serve.ts with every sample format loaded, on SQLite and Elasticsearch (`all_samples_server`). Needs `ogrinfo` and
`ogr2ogr` (Debian's gdal-bin); without them the tests fail and say so.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from typing import Any

import pytest
import requests

CATALOGUE = "metadata:main"
TIMEOUT_S = 300
# GDAL's OAPIF page size when PAGE_SIZE is not given (GDAL 3.6 does not read limit's maximum).
GDAL_PAGE_SIZE = 10


def gdal(*args: str) -> subprocess.CompletedProcess[str]:
    """Runs a GDAL command line tool; fails the test when GDAL is not installed."""
    assert shutil.which(args[0]), f"{args[0]} not found: install gdal-bin (apt-get install gdal-bin)"
    return subprocess.run(
        list(args),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env={"PATH": "/usr/bin:/bin", "GDAL_HTTP_PROXY": "", "NO_PROXY": "*"},
        check=False,
    )


@pytest.fixture(scope="module")
def api(all_samples_server: dict[str, Any]) -> str:
    return str(all_samples_server["url"])


@pytest.fixture(scope="module")
def layer(api: str) -> str:
    return f"OAPIF:{api}/collections/{CATALOGUE}"


@pytest.fixture(scope="module")
def max_limit(api: str) -> int:
    document = requests.get(f"{api}/openapi", params={"f": "json"}, timeout=60).json()
    limit = document["components"]["parameters"]["limit"]["schema"]
    assert isinstance(limit.get("maximum"), int), f"limit has no maximum: {limit}"
    return int(limit["maximum"])


@pytest.fixture(scope="module")
def api_features(api: str, max_limit: int) -> list[dict[str, Any]]:
    """Every record as the items endpoint gives it, paged by the documented maximum."""
    features: list[dict[str, Any]] = []
    offset = 0
    while True:
        page = requests.get(
            f"{api}/collections/{CATALOGUE}/items",
            params={"limit": max_limit, "offset": offset},
            timeout=60,
        ).json()
        features += page["features"]
        offset += max_limit
        if offset >= page["numberMatched"]:
            assert len(features) == page["numberMatched"]
            return features


def matched(api: str, **params: str) -> int:
    response = requests.get(f"{api}/collections/{CATALOGUE}/items", params={**params, "limit": 1}, timeout=60)
    assert response.status_code == 200, response.text
    return int(response.json()["numberMatched"])


def fetched_urls(stderr: str) -> list[str]:
    """The item page URLs GDAL fetched (its HTTP debug output)."""
    return [url for url in re.findall(r"HTTP: Fetch\((.*?)\)", stderr) if "/items?" in url]


def test_reads_every_record_with_a_geometry_when_it_has_a_footprint(
    layer: str, api_features: list[dict[str, Any]], max_limit: int
) -> None:
    result = gdal("ogr2ogr", "-f", "GeoJSON", "/vsistdout/", layer, "-oo", f"PAGE_SIZE={max_limit}")
    assert result.returncode == 0, result.stderr
    features = json.loads(result.stdout)["features"]
    assert len(features) == len(api_features)
    by_id = {feature["properties"]["id"]: feature for feature in features}
    assert set(by_id) == {feature["id"] for feature in api_features}
    # Records with only a bounding box (Dublin Core and ISO samples) used to come back with
    # geometry null, and GDAL and QGIS dropped them from maps.
    with_box = [feature["id"] for feature in api_features if feature.get("bbox")]
    lost = [identifier for identifier in with_box if by_id[identifier]["geometry"] is None]
    assert with_box and lost == []
    for identifier in with_box:
        geometry = by_id[identifier]["geometry"]
        assert geometry["type"] in {"Point", "LineString", "Polygon", "MultiPolygon", "MultiPoint"}


def test_feature_count_is_number_matched(layer: str, api: str) -> None:
    result = gdal("ogrinfo", "-ro", "-so", "-al", layer)
    assert result.returncode == 0, result.stderr
    count = re.search(r"Feature Count: (\d+)", result.stdout)
    assert count, result.stdout
    assert int(count.group(1)) == matched(api)


def test_pages_by_the_documented_maximum(layer: str, api: str, max_limit: int) -> None:
    total = matched(api)
    result = gdal(
        "ogrinfo", "--debug", "on", "-ro", "-al", "-q", layer, "-oo", f"PAGE_SIZE={max_limit}"
    )
    assert result.returncode == 0, result.stderr
    # The first page is read twice: once to learn the fields, once for the features.
    pages = fetched_urls(result.stderr)
    assert len(set(pages)) == math.ceil(total / max_limit)
    assert all(f"limit={max_limit}" in url for url in pages), pages


def test_sends_a_cql_attribute_filter_to_the_server(layer: str, api: str) -> None:
    expected = matched(api, filter="title LIKE 'S2B%'")
    assert expected > 0
    result = gdal("ogrinfo", "--debug", "on", "-ro", "-so", "-al", layer, "-where", "title LIKE 'S2B%'")
    assert result.returncode == 0, result.stderr
    # GDAL up to 3.6 sends CQL text (filter-lang=cql-text) only when the API definition lists
    # it among filter-lang's values, and only for properties the items path lists as parameters.
    assert "CQL text detected" in result.stderr
    assert "evaluated on client side" not in result.stderr
    # GDAL reads one unfiltered page to learn the fields, then pages the filtered results only.
    filtered = [url for url in fetched_urls(result.stderr) if "filter=" in url]
    assert all("filter-lang=cql-text" in url for url in filtered), filtered
    assert len(filtered) == math.ceil(expected / GDAL_PAGE_SIZE)
    count = re.search(r"Feature Count: (\d+)", result.stdout)
    assert count and int(count.group(1)) == expected


def test_filters_by_type_and_dates_at_the_server(layer: str, api: str) -> None:
    where = "type = 'service' OR type = 'series'"
    expected = matched(api, filter="type = 'service' OR type = 'series'")
    result = gdal("ogrinfo", "--debug", "on", "-ro", "-so", "-al", layer, "-where", where)
    assert result.returncode == 0, result.stderr
    assert "evaluated on client side" not in result.stderr
    count = re.search(r"Feature Count: (\d+)", result.stdout)
    assert count and int(count.group(1)) == expected > 0


def test_spatial_filter_matches_the_server(layer: str, api: str) -> None:
    box = ["14", "45", "18", "50"]
    expected = matched(api, bbox=",".join(box))
    result = gdal("ogrinfo", "--debug", "on", "-ro", "-so", "-al", layer, "-spat", *box)
    assert result.returncode == 0, result.stderr
    boxed = [url for url in fetched_urls(result.stderr) if "bbox=" in url]
    assert len(boxed) == math.ceil(expected / GDAL_PAGE_SIZE), boxed
    count = re.search(r"Feature Count: (\d+)", result.stdout)
    # GDAL also drops features whose geometry misses the box on its side; a record with only a
    # box has the box as its geometry, so both agree.
    assert count and int(count.group(1)) == expected > 0
