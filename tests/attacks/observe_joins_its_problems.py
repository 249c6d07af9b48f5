# EXPECTED: lose the cases on what observe itself adds (the registry's way out, tracebacks in problems, the count
# of problems left out); observed 30/30 when every case handed the reference's finished problem sentences.
# observe that only joins the problems the grader hands it, cut at 2,000 characters (an attacker's trial).
def observe(call, problems, tools):
    return "\n".join(problems)[:2000] if problems else None
