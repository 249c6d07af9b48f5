"""The wordings a text may use to say a kind of thing, for the cases that must check that a text says it.

Most cases judge a text by what it does (a scripted model that fixes only what a text names, a twin call whose
problem lies elsewhere: ``grader.judging.expectations.expect_says_what_is_wrong``). Where a text must say a kind of
thing (that the call is not JSON, that a comma is stray, that the retry failed), any wording that says it passes:
each tuple here holds the English words and synonyms a runtime's text uses, the Russian stems (the course's exercise
was written in Russian, and a learner may answer a Russian-reading model in Russian: issue 25's trial lost 18
points on Russian texts that said every rule), and, where one exists, the symbol itself in quotes. Matching is by
substring, ignoring case (``expect_mentions``), so a stem covers its inflections (``запят`` in ``запятая``,
``запятую``).

A wording is added here, never in a case: a case names the concept (``COMMA``), so every case that checks it
accepts the same texts.
"""

# The call, or its arguments string, is not valid JSON.
JSON = ("json",)
# Something must be a JSON object (a dict), and is not.
OBJECT = ("object", "dict", "mapping", "объект", "словар")
# What a call that is a list of calls is not, or is: a twin call's text names these less often.
OBJECT_OR_LIST = OBJECT + ("list", "array", "список", "массив")
# A stray comma: the word, or the character quoted as a text would quote it.
COMMA = ("comma", "запят", "','", '","', "`,`", "«,»", "‘,’", "“,”")
# A string was expected (or came).
STRING = ("str", "string", "строк")
# A number or an integer was expected (or came); "1" for the cases whose offending value is the integer 1.
NUMBER = ("int", "number", "1", "цел", "числ")
# NaN or Infinity, which JSON has not: named as such, or as not JSON.
NOT_A_JSON_NUMBER = ("nan", "infinity", "json", "не число", "бесконечн")
# A key given twice.
REPEATED = ("duplicate", "repeat", "twice", "once", "more than one", "повтор", "дважды", "дублир", "несколько раз")
# The retry failed because the model could not be asked.
RETRY_FAILED = ("retry", "model", "ask_model", "unavailable", "повтор", "модел", "недоступ")
