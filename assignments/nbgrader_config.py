"""nbgrader settings for the kit's course directory (run nbgrader commands from this folder)."""

import os

c = get_config()  # noqa: F821 - provided by nbgrader when it reads this file

c.CourseDirectory.course_id = "weight_tying_kit"
# This file's own folder, absolute: a relative "." makes every nbgrader command warn three times.
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
# Every other file in source/<assignment>/ is copied into the release as is (the public self-check and its
# conftest are meant to ship); caches from running it in the source folder are not.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".pytest_cache"]
# Model builds and the tokenizer take a few seconds; leave headroom on a busy machine.
c.Execute.timeout = 120

# `nbgrader autograde` runs each hand-in unsandboxed, as you: a notebook can read the solution and the hidden
# tests and print them into its feedback. It stops on the kit's assignments and names the kit's command
# (`python -m autograder grade ... --nbgrader-course .`, sandboxed); --Autograde.pre_convert_hook=None on its
# command line runs nbgrader's own anyway, for notebooks you trust.
c.Autograde.pre_convert_hook = "autograder.outputs.nbautograde.refuse_autograde"

# Both editions' source folders are built by the kit, never committed: `nbgrader generate_assignment` of a kit
# assignment stops, naming `python scripts/build_notebook.py`, unless its source folder is what the build makes.
from autograder.outputs.nbgenerate import built_first, released_plain  # noqa: E402 - after get_config, as nbgrader reads

c.GenerateAssignment.pre_convert_hook = built_first(os.path.join(c.CourseDirectory.root, "source"))
# The built README.md ends with a note to maintainers naming the kit's sources: the released copy leaves it out.
c.GenerateAssignment.post_convert_hook = released_plain(os.path.join(c.CourseDirectory.root, "release"))

# Feedback shows the graded notebook. Hidden tests must leave no trace in it: the kit's preprocessor
# replaces the outputs of cells with hidden tests (their tracebacks quote the hidden lines and values) by
# one sentence, then nbgrader's ClearHiddenTests strips their source (nbgrader #917). It must come first.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "autograder.outputs.nbfeedback.HideHiddenTestOutputs",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
# Its summary names each graded cell by its own first words ("Graded area: shape flow"), not "Task", and its
# tables keep their spacing: nbgrader's feedback template, with that changed (autograder/outputs/nbfeedback.py).
from autograder.outputs.nbfeedback import TEMPLATE, TEMPLATE_DIRS  # noqa: E402 - after get_config, as nbgrader reads

c.HTMLExporter.template_name = TEMPLATE
c.HTMLExporter.template_file = TEMPLATE + ".html.j2"
c.HTMLExporter.extra_template_basedirs = TEMPLATE_DIRS

# `nbgrader export`: one row per student, in the edition they took (weight_tying or weight_tying_zh), CSV-safe
# (nbgrader's own exporter adds a 0 row under the edition a student did not take, and quotes nothing).
c.ExportApp.plugin_class = "autograder.outputs.gradebook_export.EditionsExportPlugin"
