"""The vector evaluator: slot ads as typed numpy columns, one job matched against many
slots at once, with the scalar evaluator's semantics cell for cell (DESIGN.md §5)."""

from .evaluate import VectorMatch
from .table import SlotColumns

__all__ = ["SlotColumns", "VectorMatch"]
