# EXPECTED: loses points; drops the delta of a chunk that also carries finish_reason (real servers put the last piece and finish_reason in one chunk)
FINISHED = ("stop", "tool_calls")

def assemble_turn(chunks):
    content, calls, open_calls, finish = [], [], {}, None
    for chunk in chunks:
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if choice.get("finish_reason") is not None:
                finish = choice["finish_reason"]
                continue
            if isinstance(delta.get("content"), str):
                content.append(delta["content"])
            for piece in delta.get("tool_calls") or []:
                i = piece.get("index")
                call = open_calls.get(i) if i is not None else (calls[-1] if calls else None)
                if call is None or (piece.get("id") and call["id"] and piece["id"] != call["id"]):
                    call = {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
                    calls.append(call)
                if i is not None:
                    open_calls[i] = call
                f = piece.get("function") or {}
                if piece.get("id") and not call["id"]:
                    call["id"] = piece["id"]
                if f.get("name") and not call["function"]["name"]:
                    call["function"]["name"] = f["name"]
                if isinstance(f.get("arguments"), str):
                    call["function"]["arguments"] += f["arguments"]
            if choice.get("finish_reason") is not None:
                finish = choice["finish_reason"]
    if finish not in FINISHED:
        return None
    m = {"role": "assistant", "content": "".join(content) if content else None}
    if calls:
        m["tool_calls"] = calls
    return m
