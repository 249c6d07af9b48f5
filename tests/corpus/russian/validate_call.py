_MAX_PROBLEM = 600
_LIST_BUDGET = 1200

_TYPE_NAMES = {
    str: "строка",
    int: "целое число",
    float: "число",
    bool: "логическое значение (true/false)",
    list: "список (массив)",
    dict: "объект",
}


def _looks_like_traceback(text):
    return "Traceback (most recent call last)" in text or ('File "' in text and ", line " in text)


def _quote(text, limit=60):
    """Короткая цитата строки от модели: одна строка, не длиннее limit символов."""
    if _looks_like_traceback(text):
        return "(строка, похожая на трассировку стека, длиной " + str(len(text)) + ")"
    quoted = repr(text[:limit])
    if len(text) > limit:
        quoted += "… (всего " + str(len(text)) + " символов)"
    return quoted


def _type_name(expected):
    if expected in _TYPE_NAMES:
        return _TYPE_NAMES[expected]
    return getattr(expected, "__name__", str(expected))[:40]


def _describe(value):
    """Что пришло: тип и коротко само значение (без рекурсии по вложенным данным)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "логическое значение " + ("true" if value else "false")
    if isinstance(value, int):
        digits = str(value) if abs(value) < 10 ** 30 else "(число из многих цифр)"
        return "целое число " + digits
    if isinstance(value, float):
        return "дробное число " + repr(value)
    if isinstance(value, str):
        return "строка " + _quote(value)
    if isinstance(value, list):
        return "список из " + str(len(value)) + " эл."
    if isinstance(value, dict):
        return "объект с " + str(len(value)) + " полями"
    return "значение типа " + type(value).__name__[:40]


def _field(key):
    if isinstance(key, str):
        return _quote(key, 40)
    return _describe(key)


def _type_ok(value, expected):
    if expected is float:
        return type(value) in (int, float)
    if expected in (str, int, bool, list, dict):
        return type(value) is expected
    try:
        if isinstance(value, bool) and expected is not bool:
            return False
        return isinstance(value, expected)
    except TypeError:
        return False


def _join_limited(names, budget=_LIST_BUDGET):
    shown = []
    used = 0
    for name in names:
        piece = _quote(name, 40) if isinstance(name, str) else _describe(name)
        if used + len(piece) + 2 > budget:
            break
        shown.append(piece)
        used += len(piece) + 2
    text = ", ".join(shown) if shown else "(нет)"
    left = len(names) - len(shown)
    if left:
        text += " и ещё " + str(left)
    return text


def _cut(problem):
    problem = " ".join(problem.split())
    if len(problem) > _MAX_PROBLEM:
        problem = problem[:_MAX_PROBLEM] + "…"
    return problem


def validate_call(call, tools):
    """Вернуть все нарушения схемы из tools в разобранном вызове (пустой список — вызов корректен)."""
    try:
        return _validate(call, tools)
    except Exception as exc:
        return ["проверить вызов не удалось: внутренняя ошибка проверки (" + type(exc).__name__ + ")"]


def _validate(call, tools):
    problems = []
    if not isinstance(call, dict):
        return ["вызов должен быть объектом с полями name и arguments, а пришло: " + _describe(call)]

    registered = list(tools.keys())
    schema = None
    name = call.get("name")
    if "name" not in call:
        problems.append("в вызове нет поля name; ожидалось имя одного из инструментов: "
                        + _join_limited(registered))
    elif not isinstance(name, str):
        problems.append("имя инструмента (name) должно быть строкой, а пришло: " + _describe(name)
                        + "; зарегистрированы: " + _join_limited(registered))
    elif name not in tools:
        problems.append("инструмент " + _quote(name) + " не зарегистрирован; доступны только: "
                        + _join_limited(registered))
    else:
        schema = tools[name]

    arguments = call.get("arguments")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        where = " инструмента " + _quote(name) if schema is not None else ""
        extra = ""
        if isinstance(arguments, str):
            extra = " (строку с JSON внутри не раскодируем — пришлите сам объект)"
        problems.append("аргументы (arguments)" + where + " должны быть объектом, а пришло: "
                        + _describe(arguments) + extra)
        return [_cut(p) for p in problems]

    if schema is None:
        return [_cut(p) for p in problems]

    required = schema.get("required", {}) or {}
    optional = schema.get("optional", {}) or {}
    declared = list(required.keys()) + [k for k in optional.keys() if k not in required]
    tool = _quote(name)

    for field in required:
        if field not in arguments:
            problems.append("у инструмента " + tool + " нет обязательного аргумента " + _field(field)
                            + " (ожидается " + _type_name(required[field]) + ")")

    for field, value in arguments.items():
        if field in required:
            expected, kind = required[field], "обязательный"
        elif field in optional:
            expected, kind = optional[field], "необязательный"
        else:
            problems.append("аргумент " + _field(field) + " не объявлен у инструмента " + tool
                            + "; допустимые аргументы: " + _join_limited(declared, 400))
            continue
        if value is None:
            if kind == "необязательный":
                problems.append("аргумент " + _field(field) + " инструмента " + tool + " пришёл как null; "
                                "null не является значением — ожидается " + _type_name(expected)
                                + ", а если значение не нужно, просто не передавайте поле")
            else:
                problems.append("аргумент " + _field(field) + " инструмента " + tool + " пришёл как null, "
                                "а ожидается " + _type_name(expected))
            continue
        if not _type_ok(value, expected):
            problems.append("аргумент " + _field(field) + " инструмента " + tool + " должен быть: "
                            + _type_name(expected) + ", а пришло: " + _describe(value)
                            + " (преобразований не делаем)")

    return [_cut(p) for p in problems]
