"""pystac-client's collection search against the STAC API root (/catalogue/stac), on SQLite and
on Elasticsearch: `q`, `bbox`, `datetime` and `filter` (CQL2 text and JSON) must return exactly
the collections whose own served documents match, each checked here against the collections
themselves (their `extent`, title, description and keywords), not against the server's answer
to another request. And an aggregation request over the same records as a search.
"""

from __future__ import annotations

import json
import urllib.request
from urllib.parse import quote
import warnings
from datetime import datetime, timezone
from typing import Any

import pytest
from pystac_client import Client


def every_collection(stac_url: str) -> list[dict[str, Any]]:
    """Every STAC Collection as served, by following the plain list's next links."""
    collections: list[dict[str, Any]] = []
    url: str | None = f"{stac_url}/collections?limit=2"
    while url:
        with urllib.request.urlopen(url) as response:
            page = json.load(response)
        collections.extend(page["collections"])
        url = next((link["href"] for link in page["links"] if link["rel"] == "next"), None)
    return [c for c in collections if c["id"] != "metadata:main"]


def searched(client: Client, **parameters: Any) -> list[str]:
    search = client.collection_search(**parameters)
    found = [collection["id"] for collection in search.collections_as_dicts()]
    assert len(found) == len(set(found))
    assert search.matched() == len(found)
    return sorted(found)


def boxes_meet(a: list[float], b: list[float]) -> bool:
    def flat(box: list[float]) -> list[float]:
        return [box[0], box[1], box[3], box[4]] if len(box) == 6 else box

    def ranges(box: list[float]) -> list[tuple[float, float]]:
        return [(box[0], box[2])] if box[0] <= box[2] else [(box[0], 180), (-180, box[2])]

    fa, fb = flat(a), flat(b)
    if fa[1] > fb[3] or fb[1] > fa[3]:
        return False
    return any(aw <= be and bw <= ae for aw, ae in ranges(fa) for bw, be in ranges(fb))


def instant(value: str | None, open_end: float) -> float:
    if value is None:
        return open_end
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc).timestamp()


def intervals_meet(interval: list[str | None], start: str | None, end: str | None) -> bool:
    return instant(interval[0], float("-inf")) <= instant(end, float("inf")) and instant(
        interval[1], float("inf")
    ) >= instant(start, float("-inf"))


def text_of(collection: dict[str, Any]) -> str:
    return " ".join(
        [collection.get("title", ""), collection.get("description", "")]
        + list(collection.get("keywords", []))
    ).lower()


@pytest.fixture(scope="module")
def stac(all_samples_server: dict[str, Any]) -> tuple[Client, list[dict[str, Any]], str]:
    url = f"{all_samples_server['url']}/stac"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        client = Client.open(url)
    assert client.conforms_to("COLLECTION_SEARCH")
    assert client.conforms_to("COLLECTION_SEARCH_FREE_TEXT")
    collections = every_collection(url)
    assert len(collections) >= 4
    return client, collections, url


BOXES = [
    [14.0, 45.0, 18.0, 50.0],
    [-10.0, 35.0, 30.0, 60.0],
    [100.0, -50.0, 120.0, -40.0],
    [170.0, -20.0, -170.0, 20.0],
    [-180.0, -90.0, 180.0, 90.0],
]
DATETIMES = [
    ("2020-01-01T00:00:00Z", "2020-12-31T23:59:59Z"),
    ("2022-06-01T00:00:00Z", None),
    (None, "2000-01-01T00:00:00Z"),
    ("2018-03-04T05:06:07Z", "2018-03-04T05:06:07Z"),
]


def test_bbox_returns_exactly_the_collections_whose_extent_meets_it(stac: Any) -> None:
    client, collections, _ = stac
    sizes = set()
    for box in BOXES:
        expected = sorted(
            c["id"] for c in collections if any(boxes_meet(b, box) for b in c["extent"]["spatial"]["bbox"])
        )
        assert searched(client, bbox=box) == expected, box
        sizes.add(len(expected))
    # The cases select some collections, and not always all of them.
    assert max(sizes) > 0 and min(sizes) < len(collections)


def test_datetime_returns_exactly_the_collections_whose_extent_meets_it(stac: Any) -> None:
    client, collections, _ = stac
    sizes = set()
    for start, end in DATETIMES:
        expected = sorted(
            c["id"]
            for c in collections
            if any(intervals_meet(i, start, end) for i in c["extent"]["temporal"]["interval"])
        )
        assert searched(client, datetime=[start, end]) == expected, (start, end)
        sizes.add(len(expected))
    assert max(sizes) > 0 and min(sizes) < len(collections)


def translated_text(stac_url: str, record_id: str) -> str:
    """The title, description and keywords of a record in each of its other languages, as the
    OGC API Records item serves them (`languages`, then `lang=` for each): free text finds a
    record by a word of any of its translations."""
    url = f"{stac_url.removesuffix('/stac')}/collections/metadata:main/items/{quote(record_id, safe='')}"
    with urllib.request.urlopen(f"{url}?f=json") as response:
        languages = json.load(response)["properties"].get("languages", [])
    texts = []
    for language in languages:
        with urllib.request.urlopen(f"{url}?f=json&lang={quote(language['code'])}") as response:
            properties = json.load(response)["properties"]
        texts.append(text_of(properties))
    return " ".join(texts)


def test_q_returns_the_collections_that_mention_a_word(stac: Any) -> None:
    client, collections, stac_url = stac
    words = {"sentinel", "simple", "level"}
    for word in words:
        found = searched(client, q=word)
        mentioned = sorted(c["id"] for c in collections if word in text_of(c))
        assert set(mentioned) <= set(found), word
        for collection in collections:
            if collection["id"] in found:
                text = text_of(collection) + " " + collection["id"].lower() + " " + json.dumps(
                    collection.get("providers", [])
                ).lower()
                if word not in text:
                    text += " " + translated_text(stac_url, collection["id"])
                assert word in text, (word, collection["id"])


def test_filter_in_cql2_text_and_json(stac: Any) -> None:
    client, collections, _ = stac
    expected = sorted(c["id"] for c in collections if "Sentinel" in c.get("title", ""))
    assert expected
    assert searched(client, filter="title LIKE '%Sentinel%'", filter_lang="cql2-text") == expected
    assert (
        searched(
            client,
            filter={"op": "like", "args": [{"property": "title"}, "%Sentinel%"]},
            filter_lang="cql2-json",
        )
        == expected
    )
    # Combined with an extent: both must hold.
    box = BOXES[0]
    both = sorted(
        c["id"]
        for c in collections
        if c["id"] in expected and any(boxes_meet(b, box) for b in c["extent"]["spatial"]["bbox"])
    )
    assert searched(client, filter="title LIKE '%Sentinel%'", bbox=box) == both


def test_aggregate_counts_what_the_search_matches(stac: Any) -> None:
    client, _, url = stac
    root = url.rsplit("/stac", 1)[0]
    body = {
        "collections": ["S2MSI2A"],
        "filter": {"op": "<", "args": [{"property": "eo:cloud_cover"}, 50]},
        "aggregations": ["total_count", "cloud_cover_frequency", "datetime_frequency"],
        "datetime_frequency_interval": "year",
    }
    request = urllib.request.Request(
        f"{root}/aggregate",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request) as response:
        answer = json.load(response)
    assert answer["type"] == "AggregationCollection"
    by_name = {aggregation["name"]: aggregation for aggregation in answer["aggregations"]}
    search = Client.open(root).search(
        collections=["S2MSI2A"], filter=body["filter"], filter_lang="cql2-json", method="POST"
    )
    matched = search.matched()
    assert by_name["total_count"]["value"] == matched
    assert sum(bucket["frequency"] for bucket in by_name["cloud_cover_frequency"]["buckets"]) == matched
