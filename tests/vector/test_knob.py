"""``NEGOTIATOR_MATCH_EVALUATOR``: vector by default, scalar selectable, anything else a
configuration error that names the knob."""

import pytest

from fairpool.errors import ConfigError
from fairpool.negotiator.configure import negotiator_params
from knobs import TextKnobs


def test_vector_is_the_default_and_scalar_is_selectable():
    assert negotiator_params(TextKnobs("")).match_evaluator == "vector"
    knobs = TextKnobs("NEGOTIATOR_MATCH_EVALUATOR = Scalar\n")
    assert negotiator_params(knobs).match_evaluator == "scalar"


def test_an_unknown_evaluator_is_a_configuration_error():
    with pytest.raises(ConfigError, match="NEGOTIATOR_MATCH_EVALUATOR"):
        negotiator_params(TextKnobs("NEGOTIATOR_MATCH_EVALUATOR = gpu\n"))
