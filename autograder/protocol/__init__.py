"""Both sides: the evidence channel between the runner (untrusted) and the judge (trusted).

- ``frames``: the wire format (length-prefixed JSON + safetensors blobs) and the runner's writer;
- ``schema``: how a grader declares its evidence records once, for its experiments, suites and docs;
- ``decode``: the trusted side's reader of what came down the pipe;
- ``typed``: the kit's own dataclasses (submission, sandbox result, outcomes, result) between its processes.

The runner imports ``frames`` and ``schema`` only; nothing here imports student code or the judge.
"""
