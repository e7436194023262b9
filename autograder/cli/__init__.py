"""Trusted: the command line, ``python -m autograder <command>``: one module per subcommand over keyword-only
library functions (``main`` builds the parser and dispatches)."""
