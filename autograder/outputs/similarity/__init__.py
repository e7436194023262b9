"""Trusted: which students handed in the same code, beyond the starter code and what many hand-ins share.

One pass over a class's hand-ins, after its grades (``detect.run_similarity``; ``python -m autograder grade``
ends with it, ``python -m autograder similarity`` runs it alone), on text only: no student code runs.

- ``starter``: the released code of every edition, and the code this exercise makes alike (set aside);
- ``written``: what a student wrote (their code cells, without the cells they were given);
- ``engine``: copydetect's fingerprints and comparison, what counts as common, the candidate pairs;
- ``detect``: the pass, its order and its options; ``store``: ``similarity.json``;
- ``pages``: the side-by-side pages, the "Similar hand-ins" section, the pairs in *Needs a look*.
"""
