import json
import math


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
