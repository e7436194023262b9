"""Trusted: ``python -m autograder`` runs the command line (``autograder.cli.main``)."""

import sys

from autograder.cli.main import main

sys.exit(main())
