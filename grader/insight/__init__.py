"""The class report: ``python -m grader.insight OUT`` reads a batch's output and never regrades.

``read_batch`` reads it; ``statistics`` the item statistics; ``mistakes`` matches known mistakes
(``misconceptions.json``); ``similarity`` compares code; ``html_page`` renders; ``class_report`` ties
them together.
"""
