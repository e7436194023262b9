"""Trusted: what the grader writes for people and other tools, all from ``autograder.grading.result.Result``.

- ``roster``: who is in a batch (readable names, unique file-safe ids); ``cachekey``: the grading key;
- ``folder``: the output folder (manifest, lock, results); ``atomic``: write-then-rename;
- ``grades``: ``grades.csv``; ``classview``: the class as rows, sorted into graded, blank, unreadable, ...;
- ``report`` (with ``attention``, ``misconceptions``, ``passrates``, ``charts``): the class report;
  ``feedback``: one page per student; ``html``: the Jinja2 renderer of ``templates/``; ``wording``: sentences;
- ``table``, ``terminal``, ``console``: what the command line prints;
- ``gradebook`` and ``gradebook_cells``: scores into nbgrader's ``gradebook.db``; ``nbfeedback``: an nbgrader
  preprocessor that keeps hidden tests out of ``generate_feedback``; ``nbrelease``: the kit's pages where
  nbgrader's ``release_feedback`` hands them out.

Student text (names, messages) reaches every one of these: pages are autoescaped templates, never strings.
"""
