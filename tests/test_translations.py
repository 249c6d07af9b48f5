"""The kit in two languages (issue 29): the catalogs are complete and agree with the code, the language is chosen as
documented, and the commands speak it.

Every learner-facing text is English in the code and Russian in ``grader/translations/ru/LC_MESSAGES/toolcall.po``
(``course.catalogs``); these tests fail when a text lacks its translation, when a translation names other
``{fields}`` than its English, when the compiled ``.mo`` is stale, and when code hides a text from the catalog.
"""

import ast
import os
import re
import subprocess
import sys

import pytest
from babel.messages.catalog import Catalog

from course import catalogs
from grader.paths import GRADER_DIR, KIT_ROOT
from grader import translations
from grader.translations import _, choose, language_code, ngettext, say, speaking


def test_every_text_has_its_translation_and_the_catalogs_are_compiled():
    """The Russian catalog holds every text the code, the catalogue and the case titles have, each translated with
    the same fields, and the .po and .mo are what ``python -m course.catalogs`` writes."""
    found = catalogs.problems("ru")
    assert found == [], "\n".join(found)


def test_a_missing_translation_and_a_changed_field_are_caught():
    """The check itself can fail: an untranslated text, a fuzzy guess and a translation that renames a field (which
    would raise KeyError when shown) are each reported."""
    catalog = Catalog(locale="ru", domain="toolcall")
    catalog.add("Grading {name}", "Проверяем {name}")
    catalog.add("Score: {score} / {max} points", "Баллы: {score} из {maximum}")
    catalog.add("Still the shipped stub.", "")
    catalog.add("Every case passes.", "Все проверки пройдены.", flags=["fuzzy"])
    catalog.add(("{count} more case", "{count} more cases"), ("ещё {count} проверка", "ещё проверки", "ещё {count}"))
    found = catalogs.entry_problems(catalog, "ru")
    assert len(found) == 4, found
    assert any("'Score: {score} / {max} points'" in f and "maximum" in f for f in found), found
    assert any("no translation for 'Still the shipped stub.'" in f for f in found), found
    assert any("no translation for 'Every case passes.'" in f for f in found), found
    assert any("'{count} more case'" in f and "names the fields []" in f for f in found), found


def test_braces_of_a_quoted_code_hint_must_survive_translation():
    """A hint that quotes code with a lone brace is no format string: its braces must still come back unchanged."""
    assert catalogs.fields("a ',' before '}' is a stray comma; {\"role\": \"user\"}") == ["{\"role\": \"user\"}", "}"]
    assert catalogs.fields("{name} and {}") == ["", "name"]


def test_catalog_has_the_case_titles_the_report_shows():
    """Each hidden case's title is its docstring's first paragraph, whole (a wrapped first line was once shown cut),
    and the catalog holds it."""
    titles = {title for _file, _line, title in catalogs.case_titles()}
    assert "A missing required argument is rejected" in titles
    wrapped = [t for t in titles if t.startswith("Something that is not a whole tool call")]
    assert wrapped == ["Something that is not a whole tool call (None, text, a list, a streamed piece) raises "
                       "TypeError instead of becoming a call"]


@pytest.mark.parametrize("environ, expected", [
    ({}, "en"),
    ({"LANG": "ru_RU.UTF-8"}, "ru"),
    ({"LANG": "en_US.UTF-8", "LC_ALL": "ru_RU.UTF-8"}, "ru"),     # LC_ALL comes before LANG, as in gettext
    ({"LANGUAGE": "uk:ru:en", "LANG": "en_GB.UTF-8"}, "ru"),       # the first language the kit speaks
    ({"LC_ALL": "de_DE.UTF-8", "LANG": "ru_RU.UTF-8"}, "en"),      # gettext stops at the first variable set
    ({"LANG": "C.UTF-8"}, "en"),
    ({"TOOLCALL_LANG": "ru", "LANG": "en_US.UTF-8"}, "ru"),        # the kit's own variable beats the locale
    ({"TOOLCALL_LANG": "fr", "LANG": "ru_RU.UTF-8"}, "ru"),        # an unknown value lets the locale decide
])
def test_the_language_comes_from_the_variable_then_the_locale(environ, expected):
    """``TOOLCALL_LANG``, then the locale's variables in gettext's order, then English."""
    assert choose(None, environ) == expected


def test_the_option_beats_the_environment_and_an_unknown_one_is_one_sentence():
    """``--lang`` wins over everything; an unknown language is a ValueError of one sentence naming those spoken."""
    assert choose("en", {"TOOLCALL_LANG": "ru"}) == "en"
    assert choose("ru-RU", {}) == "ru"
    with pytest.raises(ValueError, match=r"^The kit speaks en and ru, not 'de'\.$"):
        choose("de", {})
    assert language_code("RU") == "ru" and language_code("POSIX") is None


def test_texts_follow_the_language_and_russian_plurals_have_three_forms():
    """``_`` and ``ngettext`` answer in the language spoken now; ``speaking`` restores the one before."""
    before = translations.current()
    with speaking("ru"):
        assert _("Every case passes.") == "Все проверки пройдены."
        forms = [ngettext("{count} more case ({where}) not run, for the same reason",
                          "{count} more cases ({where}) not run, for the same reason", n) for n in (1, 3, 5, 21)]
        assert [f.split()[2] for f in forms] == ["проверка", "проверки", "проверок", "проверка"]
    with speaking("en"):
        assert _("Every case passes.") == "Every case passes."
    assert translations.current() == before


def _modules():
    """``(path, tree)`` of every module of the grader."""
    for base, folders, names in os.walk(GRADER_DIR):
        folders[:] = [f for f in folders if f != "__pycache__"]
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(base, name)
                with open(path, encoding="utf-8") as handle:
                    yield path, ast.parse(handle.read(), path)


def test_no_module_hides_a_text_from_the_catalog_or_shadows_the_translator():
    """A module that imports ``_`` never binds ``_`` itself (``for _, x in ...`` made it a local and the next text
    raised NameError), and no text is marked as an f-string (Babel cannot extract it: it would never be
    translated)."""
    shadowing, formatted, checked = [], [], 0
    for path, tree in _modules():
        imports = any(isinstance(node, ast.ImportFrom) and node.module == "grader.translations"
                      and any(alias.name == "_" for alias in node.names) for node in ast.walk(tree))
        where = os.path.relpath(path, KIT_ROOT)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "N_", "say", "ngettext", "Nn_"):
                checked += 1
                if any(isinstance(arg, ast.JoinedStr) for arg in node.args):
                    formatted.append(f"{where}:{node.lineno}")
            if imports and isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store):
                shadowing.append(f"{where}:{node.lineno}")
    assert checked > 50  # the texts are there to be checked
    assert shadowing == [], f"these bind _ and hide the translator: {shadowing}"
    assert formatted == [], f"these mark f-strings, which the catalog cannot hold: {formatted}"


def _learner(*args, **env):
    """Run ``python -m grader.learner ARGS`` with ``env`` added; the completed process."""
    return subprocess.run([sys.executable, "-m", "grader.learner", *args], capture_output=True, text=True, cwd=KIT_ROOT,
                          env={**os.environ, "PYTHONPATH": KIT_ROOT, **env}, timeout=120)


def test_the_learner_command_speaks_russian_by_option_variable_or_locale(tmp_path):
    """``hint`` in Russian by ``--lang ru``, by ``TOOLCALL_LANG=ru`` and by a Russian locale; English otherwise."""
    english = _learner("--notebooks", str(tmp_path), "hint", "parse-call", "--level", "2", TOOLCALL_LANG="", LANG="C",
                       LANGUAGE="", LC_ALL="", LC_MESSAGES="")
    assert english.returncode == 0, english.stderr
    assert "Hint 2 of 3 (the rule): Exactly one JSON object" in english.stdout
    for args, env in ((("--lang", "ru"), {"TOOLCALL_LANG": "en"}), ((), {"TOOLCALL_LANG": "ru"}),
                      ((), {"TOOLCALL_LANG": "", "LC_ALL": "", "LANGUAGE": "", "LANG": "ru_RU.UTF-8"})):
        run = _learner(*args, "--notebooks", str(tmp_path), "hint", "parse-call", "--level", "2", **env)
        assert run.returncode == 0, run.stderr
        assert "Подсказка 2 из 3 (правило): Ровно один объект JSON" in run.stdout, (args, env, run.stdout)
        # The next command keeps the language (a learner trial ran it and got English).
        assert "Дальше: python -m grader.learner hint parse-call --lang ru --level 3 (рецепт)." in run.stdout
        assert "(notebooks/ru/01_parsing.ipynb)" in run.stdout
    after = _learner("--notebooks", str(tmp_path), "hint", "parse-call", "--lang", "ru", TOOLCALL_LANG="en")
    assert after.returncode == 0 and "Подсказка 1 из 3" in after.stdout, after.stderr  # --lang after the command too
    wrong = _learner("--lang", "de", "hint")
    assert wrong.returncode == 2 and "invalid choice: 'de'" in wrong.stderr and "Traceback" not in wrong.stderr


def test_help_and_argument_errors_speak_the_chosen_language():
    """A Russian learner's trial read ``--help`` in English: the commands' help texts and argparse's own words
    ("usage:", "options", its errors) follow ``--lang`` wherever it stands; without it the help is English."""
    russian = _learner("--lang", "ru", "--help", TOOLCALL_LANG="")
    assert russian.returncode == 0 and russian.stdout.startswith("использование: python -m grader.learner")
    assert "показать эту справку и выйти" in russian.stdout and "показать все задания" in russian.stdout
    assert "usage:" not in russian.stdout and "show every exercise" not in russian.stdout
    wrong = _learner("hint", "--lang", "ru", "--level", "7", TOOLCALL_LANG="")
    assert wrong.returncode == 2 and "ошибка: аргумент --level: недопустимое значение: 7" in wrong.stderr, wrong.stderr
    english = _learner("--help", TOOLCALL_LANG="", LANG="C", LANGUAGE="", LC_ALL="", LC_MESSAGES="")
    assert english.stdout.startswith("usage: python -m grader.learner") and "show every exercise" in english.stdout
    grader = subprocess.run([sys.executable, "-m", "grader", "--help", "--lang", "ru"], capture_output=True, text=True,
                            cwd=KIT_ROOT, env={**os.environ, "PYTHONPATH": KIT_ROOT, "TOOLCALL_LANG": ""}, timeout=60)
    assert grader.returncode == 0 and "путь к файлу .py или ноутбуку .ipynb" in grader.stdout, grader.stderr


def test_progress_in_russian_names_each_exercise_and_state(tmp_path):
    """The progress table in Russian: the catalogue's titles, the states and the summary line, and the default
    folder of the Russian notebooks is notebooks/ru/."""
    run = _learner("--lang", "ru", "--notebooks", str(tmp_path), "progress")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].split() == ["Задание", "Состояние", "Баллы", "Подробности"]
    assert "1 · parse_call: один объект JSON или точное описание проблемы" in run.stdout
    assert "нет файла" in lines[2] and f"В {tmp_path} нет 01_parsing.ipynb." in lines[2]
    assert lines[-1].startswith("Выполнено заданий: 0 из ")


# -- the grader's feedback in Russian ---------------------------------------------------------------------------------

ENGLISH_RUN = re.compile(r"(?:\b[A-Za-z]{3,}\b[ ,]+){5,}")  # five English words in a row: a text left untranslated
# What stays English on purpose: a case's input and the model's words (data), and the names of the kernel's walls.
KEPT_ENGLISH = ("Изоляция:", "Вход:", "Input:")


def _grade(path, language, tmp_path, seed="golden"):
    """Grade ``path`` with the command line in ``language``: ``(report text, results.json dict)``."""
    results = tmp_path / f"{language}.json"
    run = subprocess.run([sys.executable, "-m", "grader", str(path), "--seed", seed, "--lang", language, "--results",
                          str(results)], capture_output=True, text=True, cwd=KIT_ROOT, timeout=600,
                         env={**os.environ, "PYTHONPATH": KIT_ROOT})
    assert run.returncode == 0, run.stderr[-2000:]
    import json

    return run.stdout, json.loads(results.read_text(encoding="utf-8"))


def test_the_card_sample_grades_the_same_in_russian_and_every_sentence_is_russian(tmp_path):
    """The original card's sample solution (its real faults) graded in both languages with one seed: the same cases
    with the same points, and the Russian report says everything in Russian (rules, titles, what happened), apart from
    the inputs it quotes and the instructors' walls line."""
    sample = os.path.join(KIT_ROOT, "tests", "golden", "seed_sample", "submission.py")
    english, english_results = _grade(sample, "en", tmp_path)
    russian, russian_results = _grade(sample, "ru", tmp_path)
    assert [(t["score"], t["max_score"]) for t in russian_results["tests"]] == \
        [(t["score"], t["max_score"]) for t in english_results["tests"]]
    assert russian_results["score"] == english_results["score"] < 133
    failed = [t for t in russian_results["tests"] if t["status"] == "failed"]
    assert len(failed) > 20
    assert "Баллы: " in russian and "Что произошло: " in russian and "\nИзоляция: " in russian
    assert "Isolation:" not in russian and "\nIsolation: " in english
    left = [line.strip() for line in russian.splitlines()
            if ENGLISH_RUN.search(line) and not line.strip().startswith(KEPT_ENGLISH)]
    assert left == [], "\n".join(left[:10])
    assert "What happened" in english and not re.search("[а-яё]", english, re.IGNORECASE)


def test_a_loop_judged_alone_gets_its_loop_feedback_in_russian():
    """Notebook 4's loop is told about the loop (LOOP_FEEDBACK), matched on the English sentence, also in Russian; and
    a "never asked" feedback is recognised in Russian too (the retry budget spent by the first calls)."""
    from grader.judging import expectations as expect

    with speaking("ru"):
        expect.judging_loop_alone = True
        try:
            with pytest.raises(expect.CaseFailed) as raised:
                expect.fail(say("ask_model was called more than once for one call; the retry budget is one. "
                                "{unbounded_retry}", unbounded_retry=say(expect.UNBOUNDED_RETRY)))
        finally:
            expect.judging_loop_alone = False
        assert str(raised.value) == _(expect.LOOP_FEEDBACK["ask_model was called more than once"])
        assert str(raised.value).startswith("Ваш цикл спросил модель дважды")
        with pytest.raises(expect.CaseFailed) as never:
            expect.fail(say("{never_asked}. An invalid call gets one retry: call ask_model(error_text) so the model can "
                            "fix it. {silent_failure}", never_asked=say(expect.NEVER_ASKED),
                            silent_failure=say(expect.SILENT_FAILURE)))
        assert str(never.value).startswith("Модель так и не попросили")
        assert expect.told_never_asked(str(never.value))
        assert not expect.told_never_asked("Ваш цикл дважды отправил в работу один вызов")


def test_the_russian_report_folds_cases_that_did_not_run():
    """Cases that did not run share one sentence: the report shows it once and folds the rest, in Russian as in
    English (the fold looks for the translated "Not run:")."""
    from grader.results.grade_result import CaseResult, GradeResult
    from grader.results.text_report import NOT_RUN, text_report

    with speaking("ru"):
        sentence = say(NOT_RUN) + " " + say("the submission timed out on {count} cases in a row, so the remaining "
                                            "cases were skipped to keep grading bounded; fix the endless loop first.",
                                            count=3)
        cases = [CaseResult(case_id=f"c{n}", exercise="x", group="Группа", order=1, title=f"Проверка {n}", points=0.0,
                            max_points=1.0, passed=False, feedback=str(sentence)) for n in range(6)]
        report = text_report(GradeResult(submission="s.py", cases=cases))
    assert report.count("Не запущено: решение не уложилось во время в проверках подряд (их 3)") == 1
    assert "ещё 5 проверок (в группе «Группа») не запущены по той же причине (0/5)" in report


def test_the_self_check_and_its_hints_speak_the_notebook_language():
    """The notebook's self-check table, its hint levels and a failed case's input and hint line in Russian; the same
    verdicts as in English (the table's rows pass and fail alike)."""
    from grader.learner import selfcheck

    def always_fails(raw):
        return None, ["nothing parses here"]

    with speaking("en"):
        english = selfcheck.check(always_fails, "parse-call")
        english_summary = english.summary()
    with speaking("ru"):  # a notebook's set-up cell speaks its language for the whole kernel
        russian = selfcheck.check(always_fails, "parse-call")
        russian_summary, russian_table = russian.summary(), str(russian)
        lines = selfcheck.hint_lines(selfcheck.BY_ID["parse-call"], 3, selfcheck.VISIBLE_CASES["parse-call"][0])
    assert [ok for _title, ok, _detail in russian.rows] == [ok for _title, ok, _detail in english.rows]
    assert english_summary.startswith(f"{english.passed} of {len(english.rows)} visible checks passed")
    assert russian_summary.startswith(f"Открытые проверки always_fails: пройдено {russian.passed} из {len(russian.rows)}")
    failed = next(detail for _title, ok, detail in russian.rows if not ok)
    assert " Вход: " in failed and " Подсказка: " in failed
    assert "  НЕ ПРОЙДЕНА  Корректный вызов разбирается в (call, [])" in russian_table  # marks padded to one width
    assert lines[0] == "Подсказка 3 из 3 (рецепт) к заданию «1 · parse_call: один объект JSON или точное описание проблемы»:"
    assert lines[1] == "Первая непройденная проверка: Корректный вызов разбирается в (call, [])"
    assert lines[-1].startswith("Это был последний уровень.")


def test_a_gradescope_bundle_and_a_prairielearn_question_can_speak_russian(tmp_path):
    """``--lang ru`` goes into the bundle's run_autograder and the question's run.sh (Gradescope's and PrairieLearn's
    locale never decide), the question page and the editors' starting code are Russian, and the upload Gradescope
    grades gets a Russian results.json with the same points as in English."""
    import json

    from grader.classroom import gradescope_bundle, prairielearn_question

    bundle = gradescope_bundle.bundle_files(["parse-call"], secret="s", language="ru")
    assert "--lang ru" in bundle["run_autograder"][0].decode()
    assert "--lang" not in gradescope_bundle.bundle_files(["parse-call"], secret="s")["run_autograder"][0].decode()
    question = prairielearn_question.question_files(["parse-call"], "s", input_kind="editor", language="ru")
    base = "questions/toolcall_01_parsing"
    assert "--lang ru" in question[f"{base}/tests/run.sh"][0].decode()
    page = question[f"{base}/question.html"][0].decode()
    assert "Это задание проверяет вашу работу" in page and "1 · parse_call: один объект JSON" in page
    assert question[f"{base}/initial_code/parse-call.py"][0].decode().splitlines()[1].startswith("# Вставьте сюда")
    assert "This question grades" in prairielearn_question.question_html(["parse-call"])  # English by default

    upload = tmp_path / "upload"
    upload.mkdir()
    (upload / "parse.py").write_text("def parse_call(raw):\n    return None, ['broken']\n", encoding="utf-8")
    outputs = {}
    for language in ("en", "ru"):
        results = tmp_path / f"{language}.json"
        with speaking("en"):  # main speaks --lang for the rest of its process: give the test's back afterwards
            assert gradescope_bundle.main(["--grade-upload", str(upload), "--results", str(results), "--exercise",
                                           "parse-call", "--assignment-seed", "s", "--lang", language]) == 0
        outputs[language] = json.loads(results.read_text(encoding="utf-8"))
    assert [t["score"] for t in outputs["ru"]["tests"]] == [t["score"] for t in outputs["en"]["tests"]]
    failed = [t["output"] for t in outputs["ru"]["tests"] if t["status"] == "failed"]
    assert failed and all("Что произошло: " in text for text in failed)
    assert outputs["ru"]["output"].startswith("Открытые самопроверки: пройдено ")


def test_an_empty_upload_is_told_in_russian_with_the_right_plural():
    """The sentence for an upload with no notebook names the assignment's notebooks, singular or plural."""
    from grader.classroom.upload import nothing_uploaded

    with speaking("ru"):
        one = nothing_uploaded(["parse-call"])
        two = nothing_uploaded(["parse-call", "validate-call"])
    assert one == ("В загрузке не найдено ни одного файла .py или .ipynb: загрузите свой ноутбук (01_parsing.ipynb) или "
                   "свой файл .py и отправьте снова.")
    assert "загрузите свои ноутбуки (01_parsing.ipynb и 02_schema.ipynb)" in two


def test_the_note_about_missing_walls_is_one_russian_sentence(monkeypatch):
    """Off Linux's default transport the report's note names the protections missing or partial: in Russian as a list
    after a colon (no case agreement to get wrong), with the same advice."""
    import sys as system

    from grader.isolation import protections as protections_module

    monkeypatch.setattr(protections_module, "psutil_or_none", lambda: None)
    monkeypatch.setattr(system, "platform", "win32")
    monkeypatch.setattr(os, "name", "nt")
    with speaking("ru"):
        note = protections_module.protection_note()
    monkeypatch.undo()
    assert note.startswith("В этой системе в песочнице автопроверки нет защит: лимит памяти, правила ядра и очистка "
                           "дерева процессов; лишь частично работает: лимит вывода"), note
    assert note.endswith("следует использовать Linux, контейнер или Gradescope."), note


def test_the_workers_loading_sentences_reach_the_learner_in_russian(tmp_path):
    """The worker writes its loading sentences in English (it imports nothing of the grader); the trusted side puts
    them into Russian from their parts (a learner trial met "syntax.py has a syntax error ..." in a Russian report),
    keeps them unchanged in English, and leaves a sentence of another shape as it came."""
    from grader.isolation.sandbox import translated_problem

    english = ["cell 3 (parse-call) has a syntax error on line 2 (invalid syntax); that cell was skipped.",
               "cell 4, line 7 raised NameError: name 'x' is not defined while loading; the rest of that cell was skipped.",
               "cell 2 called sys.exit(1) while loading; the rest of it was skipped.", "a sentence of another shape"]
    with speaking("en"):
        assert [translated_problem(text) for text in english] == english
    with speaking("ru"):
        russian = [translated_problem(text) for text in english]
    assert russian == ["ячейка 3 (parse-call): синтаксическая ошибка в строке 2 (invalid syntax); эта ячейка пропущена.",
                       "ячейка 4, строка 7: при загрузке выброшено NameError: name 'x' is not defined; остаток этой "
                       "ячейки пропущен.",
                       "ячейка 2: при загрузке вызван sys.exit(1); остальное пропущено.", "a sentence of another shape"]
    broken = tmp_path / "syntax.py"
    broken.write_text("def parse_call(raw)\n    return None, []\n", encoding="utf-8")
    report, _results = _grade(broken, "ru", tmp_path)
    assert "syntax.py: синтаксическая ошибка в строке 1" in report and "has a syntax error" not in report
