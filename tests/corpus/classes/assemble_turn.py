"""Exercise 7b: join a streamed Chat Completions turn into one assistant message.

Standard library only. Written in a verbose, class-based style.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

#: The finish reasons that mean the model finished its turn on its own.
FINISHED_REASONS = frozenset({"stop", "tool_calls"})


@dataclass
class ToolCallBuilder:
    """One tool call being put together from its streamed pieces."""

    call_id: Optional[str]
    call_type: Optional[str]
    name: Optional[str]
    argument_parts: list[str] = field(default_factory=list)

    def add_arguments(self, text: Any) -> None:
        """Append a piece of argument text exactly as it was streamed (None adds nothing)."""
        if text is None:
            return
        self.argument_parts.append(text)

    def to_message_entry(self) -> dict:
        """The call as an entry of the message's `tool_calls` list; arguments never parsed."""
        return {
            "id": self.call_id,
            "type": self.call_type if self.call_type is not None else "function",
            "function": {
                "name": self.name,
                "arguments": "".join(self.argument_parts),
            },
        }


class TurnAssembler:
    """Collects the first choice of every chunk and builds the assistant message."""

    def __init__(self) -> None:
        self.text_parts: list[str] = []
        self.calls: list[ToolCallBuilder] = []          # in the order they started
        self.call_at_index: dict[Any, ToolCallBuilder] = {}
        self.last_started: Optional[ToolCallBuilder] = None
        self.finish_reason: Optional[str] = None

    # -- reading chunks -------------------------------------------------
    @staticmethod
    def _first_choice(chunk: Any) -> Optional[dict]:
        """The choice with index 0 of a chunk, or None (usage-only chunks have no choices)."""
        if not isinstance(chunk, dict):
            return None
        choices = chunk.get("choices")
        if not choices:
            return None
        for choice in choices:
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                return choice
        return None

    def feed(self, chunk: Any) -> None:
        choice = self._first_choice(chunk)
        if choice is None:
            return
        delta = choice.get("delta") or {}
        content = delta.get("content")
        if content is not None:
            self.text_parts.append(content)
        for piece in delta.get("tool_calls") or []:
            self._feed_piece(piece)
        reason = choice.get("finish_reason")
        if reason is not None:
            self.finish_reason = reason

    def _start_call(self, piece: dict, index: Any) -> ToolCallBuilder:
        function = piece.get("function") or {}
        builder = ToolCallBuilder(
            call_id=piece.get("id"),
            call_type=piece.get("type"),
            name=function.get("name"),
        )
        self.calls.append(builder)
        self.last_started = builder
        if index is not None:
            self.call_at_index[index] = builder
        return builder

    def _feed_piece(self, piece: dict) -> None:
        index = piece.get("index")
        piece_id = piece.get("id")
        function = piece.get("function") or {}

        if index is None:
            current = self.last_started
        else:
            current = self.call_at_index.get(index)

        starts_new = (
            current is None
            or (piece_id is not None and piece_id != current.call_id)
        )
        if starts_new:
            builder = self._start_call(piece, index)
        else:
            builder = current
            # A server that sends the id/name late: fill what the first piece lacked.
            if builder.call_id is None and piece_id is not None:
                builder.call_id = piece_id
            if builder.name is None and function.get("name") is not None:
                builder.name = function.get("name")
            if builder.call_type is None and piece.get("type") is not None:
                builder.call_type = piece.get("type")
        builder.add_arguments(function.get("arguments"))

    # -- the result -----------------------------------------------------
    def message(self) -> Optional[dict]:
        if self.finish_reason not in FINISHED_REASONS:
            return None
        text = "".join(self.text_parts)
        result: dict = {"role": "assistant", "content": text if text else None}
        if self.calls:
            result["tool_calls"] = [call.to_message_entry() for call in self.calls]
        return result


def assemble_turn(chunks):
    """Return the assistant message a finished stream carries, or None if it did not finish."""
    assembler = TurnAssembler()
    for chunk in chunks or []:
        assembler.feed(chunk)
    return assembler.message()
