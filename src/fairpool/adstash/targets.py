"""Where adstash sends documents: an Elasticsearch (or compatible) cluster through the
official client, or a file of JSON lines.

A target takes a batch of (index, id, document) and answers how many of them, from the
first, it holds now: adstash advances its checkpoint that far and stops at the first
document that could not be sent. Elasticsearch gets one bulk request per batch; the
documents it refuses for a passing reason (429, 5xx) are sent again, up to ``retries``
times with a growing pause; one it refuses for good (a 4xx: a mapping conflict, say) is
written to the rejects file beside the checkpoint and counted as sent, so that one bad
document does not stop the history behind it, and is not lost either. A new dated index
is created with adstash's field types first.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from ..errors import FairpoolError
from .convert import index_mappings

__all__ = ["ElasticTarget", "JsonLinesTarget", "Target"]

Doc = tuple[str, str, dict[str, Any]]
_PASSING = {408, 429, 500, 502, 503, 504}
_TAIL = 4 << 20  # bytes of a JSON-lines file's end read for the ids already written


class Target(Protocol):
    def send(self, batch: list[Doc]) -> int: ...


class JsonLinesTarget:
    """One JSON object per line: the document with its ``_index`` and ``_id``.

    The lines go to the file before the checkpoint moves past them, so a crash in between
    sends them again: a document whose ``_id`` is already at the file's end is not
    written twice (as Elasticsearch keeps one document per ``_id``), and a line a crash
    cut short is dropped before anything is appended to it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._last: set[str] | None = None  # the ids at the file's end, read once

    def send(self, batch: list[Doc]) -> int:
        if self._last is None:
            self._last = _ids_at_end(self.path)
        with open(self.path, "a") as handle:
            for index, doc_id, doc in batch:
                if doc_id not in self._last:
                    handle.write(json.dumps({"_index": index, "_id": doc_id, **doc}) + "\n")
            handle.flush()
        return len(batch)


def _ids_at_end(path: Path) -> set[str]:
    """The ``_id`` of each whole line in the last ``_TAIL`` bytes of a JSON-lines file
    (far more than one batch); a last line without its newline is cut off."""
    if not path.exists():
        return set()
    with open(path, "rb+") as handle:
        size = handle.seek(0, 2)
        start = max(0, size - _TAIL)
        handle.seek(start)
        tail = handle.read()
        end = tail.rfind(b"\n") + 1
        if end < len(tail) and (end > 0 or start == 0):
            handle.truncate(start + end)  # a line cut short by a crash
        lines = tail[:end].split(b"\n")
    ids = set()
    for line in lines[1:] if start > 0 else lines:  # the first may be a line's end
        try:
            doc_id = json.loads(line).get("_id")
        except (ValueError, AttributeError):
            continue
        if isinstance(doc_id, str):
            ids.add(doc_id)
    return ids


class ElasticTarget:
    """Bulk indexing through the ``elasticsearch`` client (``pip install fairpool[adstash]``)."""

    def __init__(
        self,
        url: str,
        rejects: Path,
        retries: int = 3,
        pause: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        **options: Any,
    ) -> None:
        try:
            from elasticsearch import Elasticsearch
        except ImportError:
            raise FairpoolError(
                "sending to Elasticsearch needs its client: pip install 'fairpool[adstash]'"
            ) from None
        self.client = Elasticsearch(url, **options)
        self.rejects = rejects
        self.retries = retries
        self.pause = pause
        self.sleep = sleep
        self.created: set[str] = set()
        self.refused = 0

    def send(self, batch: list[Doc]) -> int:
        from elasticsearch import ApiError, TransportError

        try:
            for index in sorted({index for index, _, _ in batch} - self.created):
                self._create(index)
            pending = list(range(len(batch)))
            for attempt in range(self.retries + 1):
                if attempt:
                    self.sleep(self.pause * 2 ** (attempt - 1))
                pending = self._bulk(batch, pending)
                if not pending:
                    return len(batch)
        except (ApiError, TransportError) as err:
            raise FairpoolError(f"Elasticsearch: {err}") from None
        return pending[0]  # everything before the first document still refused went

    def _create(self, index: str) -> None:
        from elasticsearch import BadRequestError

        try:
            self.client.indices.create(index=index, mappings=index_mappings())
        except BadRequestError as err:
            if err.error != "resource_already_exists_exception":
                raise
        self.created.add(index)

    def _bulk(self, batch: list[Doc], which: list[int]) -> list[int]:
        """Send ``which`` of the batch; the positions still to be sent again."""
        operations: list[dict[str, Any]] = []
        for k in which:
            index, doc_id, doc = batch[k]
            operations += [{"index": {"_index": index, "_id": doc_id}}, doc]
        answer = self.client.bulk(operations=operations)
        if not answer.get("errors"):
            return []
        again = []
        for k, item in zip(which, answer["items"], strict=True):
            result = item.get("index", {})
            status = int(result.get("status", 500))
            if status < 300:
                continue
            if status in _PASSING:
                again.append(k)
            else:
                self._reject(batch[k], result.get("error"))
        return again

    def _reject(self, doc: Doc, error: Any) -> None:
        self.refused += 1
        index, doc_id, body = doc
        with open(self.rejects, "a") as handle:
            record = {"_index": index, "_id": doc_id, "error": error, "doc": body}
            handle.write(json.dumps(record) + "\n")
