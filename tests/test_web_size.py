"""The table page's first load: served compressed, and under 150 KB in all (the page, its
scripts and styles, the German catalog) as it travels."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from xactika.frontends.web.app import create_app
from xactika.protocol.net.server import Server

LIMIT = 150_000  # bytes on the wire
STATIC = re.compile(
    r"""(?:import [^"']*from |src=|href=)["'](?:\./|/static/)([a-z]+\.(?:js|css))""")


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Server()).asgi, base_url="http://127.0.0.1") as c:
        yield c


def _load(client: TestClient, path: str) -> tuple[bytes, int]:
    """The body as the browser reads it, and its size as it travels (gzip asked for)."""
    answer = client.get(path, headers={"accept-encoding": "gzip"})
    assert answer.status_code == 200, (path, answer.status_code)
    wire = int(answer.headers.get("content-length", len(answer.content)))
    if len(answer.content) > 2000:
        assert answer.headers.get("content-encoding") == "gzip", path
    return answer.content, wire


def test_the_table_page_travels_compressed_and_under_the_limit(client: TestClient) -> None:
    page, total = _load(client, "/table/1?lang=de")
    seen, todo = set(), STATIC.findall(page.decode())
    while todo:  # the scripts the page loads, and those they import
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        body, wire = _load(client, f"/static/{name}")
        total += wire
        todo += STATIC.findall(body.decode())
    total += _load(client, "/i18n/de.json")[1]
    assert {"table.js", "style.css", "cards.js"} <= seen, seen
    assert total < LIMIT, f"{total} bytes for the table page's first load"
