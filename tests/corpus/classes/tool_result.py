"""Exercise 0: wrap an error observation in Anthropic's tool_result envelope."""
from dataclasses import dataclass


@dataclass(frozen=True)
class ToolErrorResult:
    """An error result for one tool_use block, ready to be sent back to the model."""

    tool_use_id: object
    message: object

    def as_block(self):
        """Build a brand-new dict each time so that callers never share state."""
        return {
            "type": "tool_result",
            "tool_use_id": self.tool_use_id,
            "content": self.message,
            "is_error": True,
        }


def tool_error_result(tool_use_id, message):
    """Return Anthropic's tool_result block for an error: the id and message unchanged, is_error True."""
    return ToolErrorResult(tool_use_id, message).as_block()
