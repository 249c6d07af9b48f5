import difflib

_LIMIT = 2000
_PROBLEM_MAX = 400

_TYPE_NAMES = {
    str: "строка",
    int: "целое число",
    float: "число",
    bool: "логическое значение",
    list: "список",
    dict: "объект",
}


def _looks_like_traceback(text):
    return "Traceback (most recent call last)" in text or ('File "' in text and ", line " in text)


def _one_line(text, limit):
    """Чужой текст — одной короткой строкой; трассировку описываем, а не цитируем."""
    if not isinstance(text, str):
        try:
            text = str(text)
        except Exception:
            text = "(проблема, которую не удалось превратить в текст)"
    if _looks_like_traceback(text):
        return "(текст, похожий на трассировку стека, длиной " + str(len(text)) + " символов, опущен)"
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[:limit] + "…"
    return text


def _name_quote(name):
    if _looks_like_traceback(name):
        return "(имя, похожее на трассировку стека)"
    name = " ".join(name.split()) if name.strip() else name
    if len(name) > 60:
        return repr(name[:60]) + "…"
    return repr(name)


def _type_name(expected):
    if expected in _TYPE_NAMES:
        return _TYPE_NAMES[expected]
    return getattr(expected, "__name__", str(expected))[:40]


def _signature(name, schema):
    """Аргументы инструмента: city (строка, обязательный), units (строка, необязательный)."""
    parts = []
    try:
        required = schema.get("required", {}) or {}
        optional = schema.get("optional", {}) or {}
    except AttributeError:
        return []
    for field, expected in required.items():
        parts.append(str(field)[:40] + " (" + _type_name(expected) + ", обязательный)")
    for field, expected in optional.items():
        if field not in required:
            parts.append(str(field)[:40] + " (" + _type_name(expected) + ", необязательный)")
    return parts


def _fit_list(items, budget, noun):
    """Перечислить элементы, пока помещаются в budget; иначе сказать, сколько опущено."""
    shown = []
    used = 0
    for index, item in enumerate(items):
        left = len(items) - index
        tail = " … и ещё " + str(left) + " " + noun + " не показано"
        if used + len(item) + 2 + len(tail) > budget and index < len(items) - 1:
            break
        if used + len(item) + 2 > budget:
            break
        shown.append(item)
        used += len(item) + 2
    text = ", ".join(shown)
    left = len(items) - len(shown)
    if left:
        text += (" … " if shown else "") + "и ещё " + str(left) + " " + noun + " не показано"
    return text


def observe(call, problems, tools):
    """Вернуть None, если проблем нет, иначе текст наблюдения для модели (не длиннее 2 000 символов)."""
    if not problems:
        return None
    try:
        return _observe(call, problems, tools)[:_LIMIT]
    except Exception as exc:
        return ("Вызов не выполнен: он не прошёл проверку, но описать проблемы подробно не удалось ("
                + type(exc).__name__ + "). Проверьте имя инструмента и аргументы и пришлите вызов снова.")


def _observe(call, problems, tools):
    problems = list(problems)
    name = call.get("name") if isinstance(call, dict) else None
    registered = [str(n) for n in tools.keys()] if isinstance(tools, dict) else []
    known = isinstance(name, str) and isinstance(tools, dict) and name in tools

    if known:
        header = "Вызов инструмента " + _name_quote(name) + " не выполнен — исправьте и пришлите заново."
    elif call is None:
        header = "Вызов не выполнен: текст не разобрался как JSON-объект — исправьте и пришлите заново."
    else:
        header = "Вызов не выполнен — исправьте и пришлите заново."
    count = len(problems)
    header += " Найдено проблем: " + str(count) + "."

    # Хвост: какие аргументы принимает названный инструмент, или какие инструменты вообще есть.
    if known:
        args = _signature(name, tools[name])
        tail_intro = "Инструмент " + _name_quote(name) + " принимает аргументы: "
        tail_items = args if args else []
        noun = "арг."
        if not args:
            tail_intro = "Инструмент " + _name_quote(name) + " не принимает аргументов: передайте пустой объект {}."
    else:
        names = registered
        if isinstance(name, str) and names:
            close = difflib.get_close_matches(name, names, n=len(names), cutoff=0.0)
            rest = [n for n in names if n not in close]
            names = close + rest
        tail_intro = "Зарегистрированные инструменты: "
        tail_items = [_name_quote(n) for n in names]
        noun = "инстр."
        if not names:
            tail_intro = "Зарегистрированных инструментов нет."

    problem_lines = [
        "- " + _one_line(p, _PROBLEM_MAX) for p in problems
    ]

    # Сначала пробуем всё целиком.
    full_tail = tail_intro + ", ".join(tail_items) + ("." if tail_items else "")
    text = header + "\n" + "\n".join(problem_lines) + "\n" + full_tail
    if len(text) <= _LIMIT:
        return text

    # Не помещается: делим бюджет между проблемами и хвостом.
    tail_budget = max(300, min(len(full_tail), 800))
    problems_budget = _LIMIT - len(header) - tail_budget - 4
    kept = []
    used = 0
    for index, line in enumerate(problem_lines):
        reserve = 60
        if used + len(line) + 1 + reserve > problems_budget:
            break
        kept.append(line)
        used += len(line) + 1
    left = len(problem_lines) - len(kept)
    if left:
        kept.append("- … и ещё " + str(left) + " проблем(ы) не показано: текст ограничен 2 000 символами")
    body = header + "\n" + "\n".join(kept) + "\n"
    room = _LIMIT - len(body) - len(tail_intro) - 2
    if tail_items:
        tail = tail_intro + _fit_list(tail_items, room, noun) + "."
    else:
        tail = tail_intro
    return (body + tail)[:_LIMIT]
