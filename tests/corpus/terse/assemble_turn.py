def _choice0(chunk):
    return next((c for c in (chunk or {}).get("choices") or [] if c.get("index", 0) == 0), None)


def assemble_turn(chunks):
    choices = [c for c in map(_choice0, chunks or []) if c]
    reasons = [c["finish_reason"] for c in choices if c.get("finish_reason")]
    if not reasons or reasons[-1] not in ("stop", "tool_calls"):
        return None
    deltas = [c.get("delta") or {} for c in choices]
    text = "".join(d["content"] for d in deltas if d.get("content"))
    calls, at, last = [], {}, None
    for p in (p for d in deltas for p in d.get("tool_calls") or []):
        i, f = p.get("index"), p.get("function") or {}
        cur = last if i is None else at.get(i)
        if cur is None or (p.get("id") is not None and p["id"] != cur["id"]):
            cur = {"id": p.get("id"), "type": p.get("type") or "function",
                   "function": {"name": f.get("name"), "arguments": ""}}
            calls.append(cur)
            last = cur
            if i is not None:
                at[i] = cur
        cur["id"] = cur["id"] if cur["id"] is not None else p.get("id")
        cur["function"]["name"] = cur["function"]["name"] or f.get("name")
        cur["function"]["arguments"] += f.get("arguments") or ""
    msg = {"role": "assistant", "content": text or None}
    return {**msg, "tool_calls": calls} if calls else msg
