def tool_error_result(tool_use_id, message):
    """Вернуть блок tool_result Anthropic для ошибки: id и текст без изменений, is_error True."""
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": message,
        "is_error": True,
    }
