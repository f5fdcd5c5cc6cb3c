"""What a search engine's structured-data reader finds in Cairn's record pages: extruct (the
library Scrapy and many crawlers use to read JSON-LD, microdata and RDFa) on the HTML page of
every sample record and every generated record.

Each page must hold exactly one JSON-LD item, a schema.org Dataset (a DataCatalog for a series, a
WebAPI for a service) with the properties Google's Dataset rules require: `name` and a
`description` of 50 to 5,000 characters; Datasets also with their `url`, `identifier` and
`includedInDataCatalog`. The landing page holds the catalogue's DataCatalog.

Runs against the real API started by conftest.py (every sample record and generated records,
on SQLite).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import extruct
import requests

ITEMS = "collections/metadata:main/items"
TYPES = {"Dataset", "DataCatalog", "WebAPI"}


def json_ld(url: str) -> list[dict[str, Any]]:
    response = requests.get(url, timeout=60)
    assert response.status_code == 200, url
    assert response.headers["content-type"].startswith("text/html"), url
    return extruct.extract(response.text, base_url=url, syntaxes=["json-ld"])["json-ld"]


def test_every_record_page_holds_a_schema_org_dataset(root_url: str, record_count: int) -> None:
    page = requests.get(f"{root_url}/{ITEMS}?f=json&limit=1000", timeout=60).json()
    features = page["features"]
    assert len(features) == page["numberMatched"] == record_count
    seen: set[str] = set()
    for feature in features:
        url = f"{root_url}/{ITEMS}/{quote(feature['id'], safe='')}?f=html"
        items = json_ld(url)
        assert len(items) == 1, url
        item = items[0]
        assert item["@context"] == "https://schema.org/", url
        assert item["@type"] in TYPES, url
        seen.add(item["@type"])
        assert isinstance(item["name"], str) and item["name"].strip(), url
        assert 50 <= len(item["description"]) <= 5000, (url, item["description"])
        assert item["url"] == url
        if item["@type"] == "Dataset":
            assert item["identifier"], url
            assert item["includedInDataCatalog"]["@type"] == "DataCatalog", url
        title = feature["properties"].get("title")
        assert item["name"] == (title.strip() if title else feature["id"]), url
    assert seen == TYPES


def test_the_landing_page_holds_the_catalogue(root_url: str) -> None:
    items = json_ld(f"{root_url}?f=html")
    assert len(items) == 1
    assert items[0]["@type"] == "DataCatalog"
    assert items[0]["@id"] == root_url
