"""Упражнение 8: цикл агента с бюджетами, которые действуют на протяжении всех ходов."""
import json

# Ошибки клиента модели, которые стоит повторить: сеть или перегрузка, а не ошибка самой модели.
TRANSIENT_ERRORS = (TimeoutError, ConnectionError)


def _readable_name(call):
    """Имя инструмента из разобранного вызова, если это строка; иначе None (общий счётчик безымянных)."""
    if isinstance(call, dict):
        name = call.get("name")
        if isinstance(name, str):
            return name
    return None


def _result_text(value):
    """Строка остаётся как есть, всё остальное превращается в JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def _request_reply(model, messages, sleep, retries, backoff):
    """Один запрос к модели со своим бюджетом повторов.

    Возвращает пару (ответ, None) или (None, причина остановки).
    """
    attempt = 0
    while True:
        try:
            return model(list(messages)), None
        except TRANSIENT_ERRORS:
            if attempt >= retries:
                return None, "model_unavailable"
            # Экспоненциальная задержка: backoff, 2*backoff, 4*backoff...
            sleep(backoff * 2 ** attempt)
            attempt += 1
        except Exception:
            # Такую ошибку повтор не вылечит.
            return None, "model_error"


def run_agent(task, model, check, dispatch, sleep, limits):
    """Довести задачу до конца: спрашивать модель, отвечать на каждый вызов, остановиться с причиной."""
    messages = [{"role": "user", "content": task}]
    state = {"turns": 0}

    def finish(stop, answer=None, tool=None):
        return {"stop": stop, "answer": answer, "turns": state["turns"], "tool": tool, "messages": messages}

    max_turns = limits.get("max_turns", 10)
    failure_limit = limits.get("tool_failures", 3)
    retries = limits.get("model_retries", 2)
    backoff = limits.get("backoff", 0.5)

    failures_in_a_row = {}   # имя инструмента -> число неудач подряд
    refused_earlier = set()  # сырые тексты вызовов, отклонённых в прошлых ходах

    try:
        while state["turns"] < max_turns:
            reply, reason = _request_reply(model, messages, sleep, retries, backoff)
            if reason is not None:
                return finish(reason)
            state["turns"] += 1
            messages.append(reply)

            calls = reply.get("calls") or []
            if not calls:
                return finish("answered", answer=reply.get("content"))

            stalled_tool = []      # первый вызов без прогресса в этом ходу
            exhausted_tool = []    # первый инструмент, исчерпавший бюджет неудач
            refused_this_turn = set()

            for item in calls:
                raw = item.get("raw")
                call, observation = check(raw)
                name = _readable_name(call)

                if observation is not None:
                    # Отклонённый вызов не выполняется: модель получает замечание.
                    content, is_error = str(observation), True
                    if not stalled_tool and isinstance(raw, str) and raw in refused_earlier:
                        stalled_tool.append(name)
                    if isinstance(raw, str):
                        refused_this_turn.add(raw)
                else:
                    try:
                        content, is_error = _result_text(dispatch(call["name"], call["arguments"])), False
                    except Exception as exc:
                        content = f"Ошибка: инструмент выбросил исключение {type(exc).__name__}: {exc}"[:500]
                        is_error = True

                messages.append({"role": "tool", "id": item.get("id"), "content": content, "is_error": is_error})

                if is_error:
                    failures_in_a_row[name] = failures_in_a_row.get(name, 0) + 1
                    if not exhausted_tool and failures_in_a_row[name] >= failure_limit:
                        exhausted_tool.append(name)
                else:
                    # Успех инструмента обнуляет его счётчик.
                    failures_in_a_row[name] = 0

            refused_earlier |= refused_this_turn

            # Порядок проверок после хода: нет прогресса, затем неудачи инструмента, затем max_turns.
            if stalled_tool:
                return finish("no_progress", tool=stalled_tool[0])
            if exhausted_tool:
                return finish("tool_failures", tool=exhausted_tool[0])

        return finish("max_turns")
    except Exception:
        # run_agent никогда не выбрасывает исключений.
        return finish("model_error")
