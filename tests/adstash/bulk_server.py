"""An HTTP server on loopback that answers as Elasticsearch's index and bulk APIs do, for
adstash's tests: no search server runs in the tests, this stands in for one.

It keeps every document it took by (index, id), counts what it was sent, and refuses
documents as a test tells it: ``refuse[id] = [status, ...]`` answers that status for
that document's next sends, one per send (429 or 503 for a passing refusal, 400 for
good), then takes it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["BulkServer", "bulk_server"]

_REASONS = {
    400: ("mapper_parsing_exception", "failed to parse field"),
    429: ("es_rejected_execution_exception", "rejected execution: queue full"),
    503: ("unavailable_shards_exception", "primary shard is not active"),
}


class BulkServer:
    def __init__(self) -> None:
        self.docs: dict[tuple[str, str], dict[str, Any]] = {}
        self.indices: dict[str, dict[str, Any]] = {}
        self.refuse: dict[str, list[int]] = {}
        self.sends: list[str] = []  # every document id sent, in order
        self.bulks = 0
        self.lock = threading.Lock()
        self.url = ""

    def create(self, index: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            if index in self.indices:
                error = {"type": "resource_already_exists_exception", "reason": "exists"}
                return 400, {"error": {**error, "root_cause": [error]}, "status": 400}
            self.indices[index] = body
        return 200, {"acknowledged": True, "shards_acknowledged": True, "index": index}

    def bulk(self, lines: list[str]) -> dict[str, Any]:
        items, errors = [], False
        with self.lock:
            self.bulks += 1
            for action, source in zip(lines[::2], lines[1::2], strict=True):
                meta = json.loads(action)["index"]
                index, doc_id = meta["_index"], meta["_id"]
                self.sends.append(doc_id)
                planned = self.refuse.get(doc_id)
                if planned:
                    status = planned.pop(0)
                    kind, reason = _REASONS[status]
                    errors = True
                    items.append(
                        {"index": {"_index": index, "_id": doc_id, "status": status,
                                   "error": {"type": kind, "reason": reason}}}
                    )  # fmt: skip
                    continue
                created = (index, doc_id) not in self.docs
                self.docs[(index, doc_id)] = json.loads(source)
                items.append(
                    {"index": {"_index": index, "_id": doc_id, "status": 201 if created else 200,
                               "result": "created" if created else "updated"}}
                )  # fmt: skip
        return {"took": 1, "errors": errors, "items": items}


class _Handler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("X-Elastic-Product", "Elasticsearch")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", 0)))

    def do_GET(self) -> None:
        self._answer(200, {"version": {"number": "9.0.0"}, "tagline": "You Know, for Search"})

    def do_HEAD(self) -> None:
        self._answer(200, {})

    def do_PUT(self) -> None:  # the client sends bulk requests as PUT /_bulk
        path = self.path.split("?")[0].strip("/")
        if path.endswith("_bulk"):
            lines = [line for line in self._body().decode().split("\n") if line.strip()]
            self._answer(200, self.server.state.bulk(lines))
        else:
            self._answer(*self.server.state.create(path, json.loads(self._body() or b"{}")))

    do_POST = do_PUT


@contextmanager
def bulk_server() -> Iterator[BulkServer]:
    """A BulkServer listening on a free loopback port for the time of the block."""
    state = BulkServer()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.state = state  # type: ignore[attr-defined]
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
