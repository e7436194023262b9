"""nbgrader settings for the kit's course directory (run nbgrader commands from this folder)."""

c = get_config()  # noqa: F821 - provided by nbgrader when it reads this file

c.CourseDirectory.course_id = "weight_tying_kit"
c.CourseDirectory.root = "."
# Every other file in source/<assignment>/ is copied into the release as is (the public self-check and its
# conftest are meant to ship); caches from running it in the source folder are not.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".pytest_cache"]
# Model builds and the tokenizer take a few seconds; leave headroom on a busy machine.
c.Execute.timeout = 120

# Feedback shows the graded notebook; strip the hidden tests' code from it so that it cannot leak through
# feedback (nbgrader #917). Their failure messages still reach the student, which is the point of feedback.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
