"""Trusted: ``python -m autograder`` runs the command line (``autograder.cli``)."""

import sys

from autograder.cli import main

sys.exit(main())
