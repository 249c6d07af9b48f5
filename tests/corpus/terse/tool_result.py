def tool_error_result(tool_use_id, message):
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": message, "is_error": True}
