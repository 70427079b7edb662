"""condor_adstash: finished jobs from the schedds' histories as JSON documents, sent to
Elasticsearch through its official client or written as JSON lines, with a checkpoint
(convert.py, checkpoint.py, targets.py, run.py; ``fairpool adstash``)."""

from .checkpoint import Checkpoint
from .convert import doc_id, index_mappings, to_document
from .run import Report, index_name, stash
from .targets import ElasticTarget, JsonLinesTarget

__all__ = [
    "Checkpoint",
    "ElasticTarget",
    "JsonLinesTarget",
    "Report",
    "doc_id",
    "index_mappings",
    "index_name",
    "stash",
    "to_document",
]
