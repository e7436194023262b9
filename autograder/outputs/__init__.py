"""Trusted: what the grader writes for people and other tools, all from ``autograder.result.Result``.

- ``table``: the readable per-test table in a terminal;
- ``grades``: a batch's ``grades.csv`` and ``results/<student>.json`` (Gradescope's format);
- ``html``: shared page pieces; ``report``: the class report; ``feedback``: one page per student;
- ``gradebook``: scores into nbgrader's ``gradebook.db``.

Student text (names, messages) reaches every one of these: it is escaped, never read as markup.
"""
