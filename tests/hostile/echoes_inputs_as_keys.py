"""Returns its inputs as the keys of the block, hoping the feedback lists them (a fifth adversarial round)."""


def tool_error_result(tool_use_id, message):
    return {"ECHO=" + str(tool_use_id): 1, "ECHO=" + str(message): 2}
