"""Trusted: grading at course scale with warm processes.

- ``worker``: one warm worker (a fork server, a judge, a sandbox uid) grading one submission at a time;
- ``local``: a pool of workers on this machine (``grade_batch``'s default executor);
- ``on_dask``: the same workers on a dask.distributed cluster (``--executor dask --scheduler tls://...``); its
  dask client runs sandboxed (``dask_relay``), what the workers run is ``dask_task``;
- ``dask_tls``: the rule that a cluster is reached over mutual TLS only; ``dask_certs``: the course's CA and
  its certificates.
"""
