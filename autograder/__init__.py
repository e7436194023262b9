"""Both sides: the kit's grader. Trusted packages judge; ``autograder.runner`` runs beside student code.

The trust boundary is drawn by packages (see docs/architecture.md):

- untrusted (inside the sandbox, next to student code): ``autograder.runner``, each grader's ``runner/``
  folder, and ``autograder.protocol``'s frame writer and record schema;
- trusted (the grader's own processes, which never run student code): everything else.

Importing this package has no side effects and imports nothing: the sandbox imports it too.
"""
