"""Fixtures for the interoperability tests: the real Cairn API, started by serve.ts over a
temporary SQLite file loaded with every sample record of the repository (data/samples: STAC,
ISO 19139, ISO 19115-3 and Dublin Core) and generated records, so that every client is tried
on every kind of record (`server`); `all_samples_server` is that server and the same records on
Elasticsearch and on OpenSearch, for the tests that run on every backend.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "data" / "samples"
GENERATED_RECORDS = 200
START_TIMEOUT_S = 120


def _tsx() -> list[str]:
    local = REPO / "node_modules" / ".bin" / "tsx"
    return [str(local)] if local.exists() else ["npx", "--no-install", "tsx"]


def _serve(*arguments: str) -> Iterator[dict[str, Any]]:
    """Starts test/interop/serve.ts with these arguments and yields its `{url, records, rejected,
    backend}` line; stops it afterwards."""
    process = subprocess.Popen(
        [*_tsx(), "test/interop/serve.ts", *arguments],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], START_TIMEOUT_S)
        line = process.stdout.readline() if ready else ""
        if not line:
            raise RuntimeError(
                f"serve.ts {' '.join(arguments)} did not start within {START_TIMEOUT_S}s "
                f"(exit {process.poll()})"
            )
        info = json.loads(line)
        assert info["rejected"] == [], f"sample records were rejected: {info['rejected']}"
        yield info
    finally:
        if process.stdin:
            process.stdin.close()
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def server() -> Iterator[dict[str, Any]]:
    """The API over every sample record and generated records, on SQLite."""
    assert SAMPLES.is_dir(), f"sample records not found at {SAMPLES}"
    yield from _serve("--records", str(GENERATED_RECORDS), "--samples", "all")


# The engine every-sample servers also run on: its URL comes from scripts/services.sh, as for
# the system tests (scripts/test-all.sh exports it).
ENGINE_URL_VARIABLES = {
    "elasticsearch": "CAIRN_TEST_ELASTICSEARCH_URL",
    "opensearch": "CAIRN_TEST_OPENSEARCH_URL",
}


@pytest.fixture(scope="session", params=["sqlite", "elasticsearch", "opensearch"])
def all_samples_server(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """The API over every sample folder (STAC, ISO 19139 with gmi:MI_Metadata, ISO 19115-3,
    Dublin Core) and generated records, once on SQLite (`server`), once on Elasticsearch and
    once on OpenSearch."""
    backend = str(request.param)
    if backend == "sqlite":
        yield request.getfixturevalue("server")
        return
    variable = ENGINE_URL_VARIABLES[backend]
    if not os.environ.get(variable):
        pytest.fail(
            f"{variable} is not set: start the engine with `bash scripts/services.sh start "
            f"{backend}` and export the URL from $CAIRN_CACHE/run/env.sh"
        )
    yield from _serve(
        "--records", str(GENERATED_RECORDS), "--samples", "all", "--backend", backend
    )


@pytest.fixture(scope="session")
def root_url(server: dict[str, Any]) -> str:
    return str(server["url"])


@pytest.fixture(scope="session")
def stac_url(root_url: str) -> str:
    """The STAC API root (Collections and Features besides item search)."""
    return f"{root_url}/stac"


@pytest.fixture(scope="session")
def record_count(server: dict[str, Any]) -> int:
    return int(server["records"])


@pytest.fixture(scope="module", params=["sqlite", "elasticsearch"])
def oai_server(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """Two API replicas over one backend (every sample and generated records), writes protected
    by the test realm of the real Keycloak, OAI-PMH pages of 25: once on SQLite, once on
    Elasticsearch."""
    backend = str(request.param)
    variable = ENGINE_URL_VARIABLES.get(backend)
    if variable and not os.environ.get(variable):
        pytest.fail(
            f"{variable} is not set: start the engine with `bash scripts/services.sh start "
            f"{backend}` and export the URL from $CAIRN_CACHE/run/env.sh"
        )
    yield from _serve(
        "--records", "120", "--samples", "all", "--backend", backend,
        "--replicas", "2", "--auth", "--oai-page-size", "25",
    )
