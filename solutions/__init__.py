"""Reference solution for the kit's capstone: validate a raw tool call, then dispatch or reject.

The steps are separate modules so the notebooks can teach (and the grader can test) each one:

    raw string --parse_call--> call dict --validate_call--> violations
        --observe--> text for the model (check: the three together)
        --run_tool_call / handle_tool_call--> dispatch result or rejection
    a turn of many calls --answer_turn--> one answer per call id (notebook 7)

Standard library only, as the seed (``../shared/seeds/000_bcc9a878f177eb86.txt``) requires.
"""

from solutions.registry import TOOLS, TYPE_NAMES, describe_schema
from solutions.violations import Violation
from solutions.parse import parse_call
from solutions.schema import validate_call, check_call
from solutions.observation import build_observation, observe, MAX_OBSERVATION_CHARS
from solutions.json_schema import validate_arguments
from solutions.adapters import raw_call_from_openai, raw_call_from_anthropic, tool_error_result
from solutions.retry import check, handle_tool_call, run_tool_call, echo_dispatch, rejection, RETRY_BUDGET
from solutions.turn import answer_turn

__all__ = [
    "TOOLS",
    "TYPE_NAMES",
    "describe_schema",
    "Violation",
    "parse_call",
    "validate_call",
    "check_call",
    "build_observation",
    "observe",
    "MAX_OBSERVATION_CHARS",
    "check",
    "handle_tool_call",
    "run_tool_call",
    "RETRY_BUDGET",
    "echo_dispatch",
    "rejection",
    "validate_arguments",
    "raw_call_from_openai",
    "raw_call_from_anthropic",
    "tool_error_result",
    "answer_turn",
]
