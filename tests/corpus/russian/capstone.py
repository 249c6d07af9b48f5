"""Капстоун: проверка сырого вызова инструмента до выполнения, одна повторная попытка, затем отказ.

Только стандартная библиотека. Собрано из собственных шагов (разбор, проверка схемы, наблюдение, цикл повтора)."""
import difflib
import json
import math

TOOLS = {
    "get_weather": {"required": {"city": str}, "optional": {"units": str}},
}


def dispatch(name, arguments):
    """Заглушка исполнителя инструментов: ничего не запускает, только сообщает, что было бы выполнено."""
    return {"status": "dispatched", "name": name, "arguments": arguments}


# ---- parse_call.py ----


_MAX_PROBLEM = 600


class _BadConstant:
    """Метка для NaN / Infinity / -Infinity, которые json.loads пропускает, хотя это не JSON."""

    def __init__(self, word):
        self.word = word


class _Duplicates(Exception):
    pass


def _looks_like_traceback(text):
    return "Traceback (most recent call last)" in text or ('File "' in text and ", line " in text)


def _snippet(text, limit=40):
    """Короткая цитата из чужого текста: одна строка, без трассировок."""
    if _looks_like_traceback(text):
        return "(фрагмент, похожий на трассировку стека)"
    piece = text[:limit]
    quoted = repr(piece)
    if len(text) > limit:
        quoted += "…"
    return quoted


def _path_text(path):
    if not path:
        return "корень"
    out = ""
    for step in path:
        if isinstance(step, int):
            out += "[" + str(step) + "]"
        else:
            key = step if len(step) <= 40 else step[:40] + "…"
            out += ("." if out else "") + key
    if len(out) > 200:
        out = out[:200] + "…"
    return out


def _hint_for_decode_error(text, exc):
    pos = exc.pos
    before = text[:pos].rstrip()
    at = text[pos:pos + 1]
    after = text[pos:].lstrip()
    stripped = text.strip()

    # Лишняя запятая перед } или ]: на 3.13 позиция указывает на саму запятую, на 3.10–3.12 — после неё.
    if at == "," and text[pos + 1:].lstrip()[:1] in ("}", "]"):
        return "лишняя запятая перед закрывающей скобкой — уберите запятую"
    if before.endswith(",") and after[:1] in ("}", "]"):
        return "лишняя запятая перед закрывающей скобкой — уберите запятую"
    if stripped.startswith("```"):
        return "JSON обёрнут в markdown-блок ```: пришлите голый JSON без обёртки"
    if pos >= len(text.rstrip()):
        return "текст обрывается на середине — похоже, ответ обрезан; пришлите объект целиком"
    if at == "'":
        return "строки и ключи в одинарных кавычках; в JSON нужны двойные кавычки"
    if not stripped.startswith("{") and not stripped.startswith("["):
        return "перед JSON стоит посторонний текст; пришлите только объект"
    # Объект корректен, но за ним что-то есть.
    try:
        _, end = json.JSONDecoder().raw_decode(stripped)
    except (ValueError, RecursionError):
        end = None
    if end is not None:
        rest = stripped[end:].lstrip()
        if rest.startswith("{"):
            return "после первого объекта идёт ещё один; нужен ровно один объект"
        return "после JSON-объекта идёт лишний текст; пришлите только объект"
    return "рядом с этим местом стоит " + (_snippet(at, 5) if at else "конец текста")


def _walk_for_bad_numbers(value, problems):
    """Обходит разобранное значение без рекурсии и ищет NaN/Infinity и бесконечные числа."""
    stack = [(value, [])]
    while stack:
        item, path = stack.pop()
        if isinstance(item, _BadConstant):
            problems.append(
                "в поле " + _path_text(path) + " стоит " + item.word
                + " — это не число JSON; укажите обычное конечное число"
            )
        elif isinstance(item, float) and not math.isfinite(item):
            problems.append(
                "в поле " + _path_text(path) + " число не помещается в double (получилась бесконечность); "
                "укажите конечное число"
            )
        elif isinstance(item, dict):
            for key in reversed(list(item.keys())):
                stack.append((item[key], path + [str(key)]))
        elif isinstance(item, list):
            for index in range(len(item) - 1, -1, -1):
                stack.append((item[index], path + [index]))


def _bounded(problem):
    problem = " ".join(problem.split())
    if len(problem) > _MAX_PROBLEM:
        problem = problem[:_MAX_PROBLEM] + "…"
    return problem


def parse_call(raw):
    """Вернуть (call, []) для строки ровно с одним JSON-объектом, иначе (None, [описание проблемы, ...])."""
    try:
        return _parse(raw)
    except Exception as exc:  # последняя страховка: наружу ничего не выходит
        return None, ["не удалось разобрать вызов: внутренняя ошибка разбора (" + type(exc).__name__ + ")"]


def _parse(raw):
    if not isinstance(raw, str):
        kind = "null" if raw is None else "значение типа " + type(raw).__name__
        return None, ["вызов должен быть строкой с JSON-объектом, а пришло " + kind]
    if not raw.strip():
        return None, ["вызов пустой (строка длиной " + str(len(raw)) + " без JSON, позиция 0); "
                      "пришлите JSON-объект вида {\"name\": ..., \"arguments\": {...}}"]

    duplicates = []

    def pairs_hook(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen and key not in duplicates:
                duplicates.append(key)
            seen.add(key)
        return dict(pairs)

    try:
        value = json.loads(raw, object_pairs_hook=pairs_hook, parse_constant=_BadConstant)
    except json.JSONDecodeError as exc:
        hint = _hint_for_decode_error(raw, exc)
        return None, [_bounded(
            "это не корректный JSON: ошибка в строке " + str(exc.lineno) + ", столбце " + str(exc.colno)
            + " (символ " + str(exc.pos) + "): " + hint
        )]
    except RecursionError:
        return None, ["JSON вложен слишком глубоко — разобрать его нельзя; уменьшите вложенность"]
    except ValueError:
        return None, ["в JSON есть число, которое не удаётся прочитать (слишком много цифр); "
                      "укажите число покороче"]

    if not isinstance(value, dict):
        if value is None:
            kind = "null"
        elif isinstance(value, bool):
            kind = "логическое значение"
        elif isinstance(value, (int, float)):
            kind = "число"
        elif isinstance(value, str):
            kind = "строка"
        elif isinstance(value, list):
            kind = "список (массив), элементов: " + str(len(value))
        else:
            kind = "значение другого типа"
        return None, ["ожидался один JSON-объект {\"name\": ..., \"arguments\": {...}}, а пришло другое: " + kind
                      + ". Вызов должен быть объектом; несколько вызовов сразу не принимаются"]

    problems = []
    for key in duplicates:
        problems.append(_bounded("ключ " + _snippet(key) + " повторяется в одном объекте; "
                                 "оставьте его один раз"))
    _walk_for_bad_numbers(value, problems)
    if problems:
        if len(problems) > 20:
            left = len(problems) - 20
            problems = problems[:20] + ["и ещё " + str(left) + " таких же проблем"]
        return None, problems

    if value.get("arguments") is None:
        value["arguments"] = {}
    return value, []


# ---- validate_call.py ----
_VAL_MAX_PROBLEM = 600
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
    if len(problem) > _VAL_MAX_PROBLEM:
        problem = problem[:_VAL_MAX_PROBLEM] + "…"
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


# ---- observe.py ----

_OBS_LIMIT = 2000
_PROBLEM_MAX = 400

_OBS_TYPE_NAMES = {
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


def _obs_type_name(expected):
    if expected in _OBS_TYPE_NAMES:
        return _OBS_TYPE_NAMES[expected]
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
        parts.append(str(field)[:40] + " (" + _obs_type_name(expected) + ", обязательный)")
    for field, expected in optional.items():
        if field not in required:
            parts.append(str(field)[:40] + " (" + _obs_type_name(expected) + ", необязательный)")
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
        return _observe(call, problems, tools)[:_OBS_LIMIT]
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
    if len(text) <= _OBS_LIMIT:
        return text

    # Не помещается: делим бюджет между проблемами и хвостом.
    tail_budget = max(300, min(len(full_tail), 800))
    problems_budget = _OBS_LIMIT - len(header) - tail_budget - 4
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
    room = _OBS_LIMIT - len(body) - len(tail_intro) - 2
    if tail_items:
        tail = tail_intro + _fit_list(tail_items, room, noun) + "."
    else:
        tail = tail_intro
    return (body + tail)[:_OBS_LIMIT]


# ---- run_tool_call.py ----
_RUN_LIMIT = 2000


def _looks_like_traceback(text):
    return "Traceback (most recent call last)" in text or ('File "' in text and ", line " in text)


def _short_reason(exc):
    """Причина сбоя одной короткой строкой, без трассировки."""
    kind = type(exc).__name__[:60]
    try:
        message = str(exc)
    except Exception:
        message = ""
    if not message:
        return kind
    if _looks_like_traceback(message):
        first = message.strip().splitlines()[0] if message.strip() else ""
        if first and not _looks_like_traceback(first) and not first.startswith("Traceback"):
            first = first[:150]
            return kind + ": " + first + " (дальше шла трассировка стека, она опущена)"
        return kind + " (сообщение похоже на трассировку стека, поэтому опущено)"
    message = " ".join(message.split())
    if len(message) > 150:
        message = message[:150] + "…"
    return kind + ": " + message


def _reject(text):
    text = str(text)
    if len(text) > _RUN_LIMIT:
        text = text[:_RUN_LIMIT - 1] + "…"
    return {"status": "rejected", "error": text}


def _check(check, raw, tools):
    """Вызвать check; если она сама упала, считать вызов непрошедшим проверку."""
    try:
        return check(raw, tools)
    except Exception as exc:
        return None, ("Вызов не выполнен: проверить его не удалось (" + _short_reason(exc)
                      + "). Пришлите вызов заново в виде {\"name\": ..., \"arguments\": {...}}.")


def _dispatch(dispatch, call):
    try:
        return dispatch(call["name"], call["arguments"])
    except Exception as exc:
        return _reject("Вызов прошёл проверку, но инструмент завершился с ошибкой (" + _short_reason(exc) + ").")


def run_tool_call(raw, ask_model, tools, dispatch, check):
    """Выполнить корректный вызов; некорректному дать ровно один повтор; иначе вернуть отказ."""
    call, observation = _check(check, raw, tools)
    if observation is None:
        return _dispatch(dispatch, call)

    # Один повтор: модель получает наблюдение и присылает новый вызов.
    try:
        retry_raw = ask_model(observation)
    except Exception as exc:
        return _reject("Вызов отклонён: повторная попытка не удалась — модель не ответила на замечания ("
                       + _short_reason(exc) + "). Ничего не выполнено. Что не так в последней попытке: " + str(observation))

    call, observation = _check(check, retry_raw, tools)
    if observation is None:
        return _dispatch(dispatch, call)

    return _reject("Вызов отклонён: и повторная попытка не прошла проверку, ничего не выполнено. "
                   "Что не так в последней попытке: " + str(observation))


# ---- связка ----
def check(raw, tools):
    call, problems = parse_call(raw)
    if call is not None:
        problems = validate_call(call, tools)
    return call, observe(call, problems, tools)


def handle_tool_call(raw: str, ask_model) -> dict:
    # TOOLS и dispatch читаются в момент вызова: грейдер подставляет свои перед каждым случаем.
    return run_tool_call(raw, ask_model, TOOLS, dispatch, check)
