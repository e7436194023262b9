"""Trusted: ``nbgrader generate_feedback``'s page: hidden tests leave no trace in it, and graded cells are named.

nbgrader's ``ClearHiddenTests`` removes the hidden lines from a cell's source, but the cell's outputs still
hold the traceback, which quotes those lines and the values they compared (nbgrader #917). This
preprocessor replaces every output of a cell with a hidden-test region by one sentence (and whether it
passed), so neither the source nor the failing lines reach the student. It must run before
``ClearHiddenTests``, which removes the markers it looks for; the course's ``nbgrader_config.py`` lists it::

    c.GenerateFeedback.preprocessors = [
        "nbgrader.preprocessors.GetGrades",
        "autograder.outputs.nbfeedback.HideHiddenTestOutputs",
        "nbgrader.preprocessors.ClearHiddenTests",
        "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    ]
"""

from __future__ import annotations

from pathlib import Path

import nbgrader
from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

__all__ = ["HideHiddenTestOutputs", "TEMPLATE", "TEMPLATE_DIRS"]

# The page generate_feedback writes: nbgrader's own feedback template, its summary naming each graded cell by its
# own first words instead of "Task" (nbgrader_feedback/kit_feedback/kit_feedback.html.j2, which extends the next
# index.html.j2 on the search path: nbgrader's). The course's config selects it:
#     c.HTMLExporter.template_name = TEMPLATE
#     c.HTMLExporter.template_file = TEMPLATE + ".html.j2"
#     c.HTMLExporter.extra_template_basedirs = TEMPLATE_DIRS
TEMPLATE = "kit_feedback"
TEMPLATE_DIRS = [
    str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"),  # what it extends
    str(Path(__file__).parent / "nbgrader_feedback"),
]


class HideHiddenTestOutputs(NbGraderPreprocessor):
    """Replace the outputs of cells that hold hidden tests by a short note."""

    begin_test_delimeter = Unicode(
        "BEGIN HIDDEN TESTS", help="The marker of a hidden-test region (as ClearHiddenTests spells the trait)"
    ).tag(config=True)
    note = Unicode(
        "This cell runs hidden tests: their code and their messages are not shown in feedback.",
        help="What the student reads instead of the cell's outputs",
    ).tag(config=True)

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type != "code" or self.begin_test_delimeter not in cell.source:
            return cell, resources
        failed = any(
            out.get("output_type") == "error" or (out.get("output_type") == "stream" and out.get("name") == "stderr")
            for out in cell.get("outputs", [])
        )
        if failed:
            verdict = " They did not pass."
        else:
            verdict = " They were not run." if cell.get("execution_count") is None else " They passed."
        cell.outputs = [new_output("stream", name="stdout", text=self.note + verdict + "\n")]
        return cell, resources
