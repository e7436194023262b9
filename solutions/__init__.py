"""Reference answers for the kit's assignments (instructor side; never shipped to students).

`solutions/weight_tying.py` is the single source of truth for the weight-tying notebook's solution cells:
`scripts/build_notebook.py` copies its classes into the source notebook, and a test checks they agree.
"""
