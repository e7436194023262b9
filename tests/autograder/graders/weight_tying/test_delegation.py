"""A graded run's dnnlpy has no decoder (issue 31): a generate that hands its loop to the library, however it
hides it, gets none of the generation area's points, on both paths, and the decoder's source is nowhere in the
sandbox's view.

Each evasion below kept all 100 points against the in-process watch this design replaced (the attacks of
issue 31, made against that watch); the plain delegation (w44) scored 82. Here each is graded in the real
sandbox, as a class would be.
"""

from __future__ import annotations

import json
import textwrap

import nbformat
import pytest

from autograder.graders import get_assignment
from autograder.graders.kit import COURSE_DIR, SOLUTIONS_DIR
from autograder.grading.fresh import grade_submission
from autograder.grading.pool.worker import Worker
from autograder.outputs.attention import attention
from autograder.outputs.classview import ClassView, Row, triage
from autograder.sandbox import Limits, probe_isolation

SPEC = get_assignment("weight_tying")
SEED = 31
LIMITS = Limits(wall_seconds=60)
GENERATION = "argmax generation"
NAMESPACES = pytest.mark.skipif(probe_isolation().mode != "namespaces", reason="needs root and util-linux unshare")

SOLUTION = (SOLUTIONS_DIR / "weight_tying.py").read_text(encoding="utf-8")

# Each evasion replaces the solution's generate with one that gets its tokens from dnnlpy's decoder.
EVASIONS = {
    # json.dumps, which writes every frame, rewritten to empty the record's list of library decoders called;
    # the record's seal hashed nothing of its cases, so it still held
    "json_dumps_empties_the_record": """
        import json, re
        _dumps = json.dumps
        def _quiet(obj, *args, **kwargs):
            return re.sub(r'"delegated":\\[[^\\]]*\\]', '"delegated":[]', _dumps(obj, *args, **kwargs))
        json.dumps = _quiet
        def generate(self, input_ids, max_new_tokens):
            return self.minigpt.generate(input_ids, max_new_tokens, do_sample=False)
        """,
    # a helper process forked at import, before anything watched generate, decodes for it
    "helper_forked_at_import": """
        import dataclasses, os, pickle, struct
        def _send(fd, obj):
            data = pickle.dumps(obj)
            data = struct.pack("<Q", len(data)) + data
            while data:
                data = data[os.write(fd, data):]
        def _recv(fd):
            data = b""
            while len(data) < 8 or len(data) < 8 + struct.unpack("<Q", data[:8])[0]:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise EOFError("the helper is gone")
                data += chunk
            return pickle.loads(data[8:])
        _asks, _asked = os.pipe()
        _answered, _answers = os.pipe()
        if os.fork() == 0:
            try:
                while True:
                    cfg, state, ids, n = _recv(_asks)
                    model = gpt.MiniGPT(**cfg)
                    model.load_state_dict(state)
                    try:
                        _send(_answers, ("ok", model.generate(ids, n, do_sample=False)))
                    except Exception as exc:
                        _send(_answers, ("error", f"{type(exc).__name__}: {exc}"))
            finally:
                os._exit(0)
        def generate(self, input_ids, max_new_tokens):
            cfg = dataclasses.asdict(self.minigpt.config)
            _send(_asked, (cfg, self.minigpt.state_dict(), input_ids, max_new_tokens))
            how, what = _recv(_answered)
            if how != "ok":
                raise RuntimeError(what)
            return what
        """,
    # the calling thread's profiler paused, then the watch's findings cleared through its relay in dnnlpy
    "profiler_paused_findings_cleared": """
        import sys
        def generate(self, input_ids, max_new_tokens):
            profiler = sys.getprofile()
            paused = hasattr(profiler, "disable")
            if paused:
                profiler.disable()
            try:
                return self.minigpt.generate(input_ids, max_new_tokens, do_sample=False)
            finally:
                watch = getattr(vars(gpt).get("__weight_tying_watch_relay__"), "__self__", None)
                if watch is not None:
                    watch.seen.clear()
                    watch.shared[:] = bytes(len(watch.shared))
                if paused:
                    profiler.enable(subcalls=False, builtins=False)
        """,
    # the decoder's code copied at import under other names and another file
    "decoder_code_copied": """
        import inspect, types
        from dnnlpy.models import sampling
        def _copy(fn, space):
            code = fn.__code__.replace(co_name="mine", co_qualname="mine", co_filename="<mine>")
            copy = types.FunctionType(code, space, "mine", fn.__defaults__, fn.__closure__)
            copy.__kwdefaults__ = fn.__kwdefaults__
            return copy
        _sampling = dict(vars(sampling))
        for _name, _fn in list(_sampling.items()):
            if isinstance(_fn, types.FunctionType) and _fn.__module__ == sampling.__name__:
                _sampling[_name] = _copy(_fn, _sampling)
        _gpt = dict(vars(gpt), sample_next_token=_sampling["sample_next_token"])
        _decode = _copy(inspect.unwrap(gpt.MiniGPT.generate), _gpt)
        def generate(self, input_ids, max_new_tokens):
            with torch.no_grad():
                return _decode(self.minigpt, input_ids, max_new_tokens)
        """,
    # the library's source read from disk and run as the student's own module
    "library_source_run_from_disk": """
        import inspect, sys, types
        from dnnlpy.models import sampling
        def _run(module):
            mine = types.ModuleType(module.__name__ + "_mine")
            mine.__package__ = module.__package__
            sys.modules[mine.__name__] = mine  # a dataclass looks its module up there
            with open(module.__file__, encoding="utf-8") as fh:
                exec(compile(fh.read(), "<mine>", "exec"), vars(mine))
            return vars(mine)
        _sampling = _run(sampling)
        _gpt = _run(gpt)
        _gpt["sample_next_token"] = _sampling["sample_next_token"]
        _decode = inspect.unwrap(_gpt["MiniGPT"].generate)
        def generate(self, input_ids, max_new_tokens):
            with torch.no_grad():
                return _decode(self.minigpt, input_ids, max_new_tokens)
        """,
}


def _evasion(code: str) -> str:
    return SOLUTION + "\n" + textwrap.dedent(code) + "\nMiniGPTWithWeightTying.generate = generate\n"


@pytest.fixture(scope="module")
def worker():
    worker = Worker(SPEC.name, LIMITS)
    yield worker
    worker.close()


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _generation(result) -> list:
    return [t for t in result.tests if t.area == GENERATION]


@pytest.mark.parametrize("name", sorted(EVASIONS))
def test_a_generate_that_hands_its_loop_to_the_library_earns_no_generation_point(name, worker, tmp_path):
    result = worker.grade_path(_write(tmp_path, f"{name}.py", _evasion(EVASIONS[name])), seed=SEED)
    assert result.run.load_errors == [], result.run.load_errors  # the evasion is in place
    generation = _generation(result)
    assert generation and not any(t.passed for t in generation), [(t.name, t.message("en")[:200]) for t in generation]
    assert result.score <= 82, (result.score, result.output)
    if name != "helper_forked_at_import":  # the helper's own process reached the stub, not the run
        said = " ".join(t.message("en") for t in generation)
        assert "delegated generate" in said or "runner was changed" in said, said[:600]


def test_the_solution_keeps_every_point_on_the_same_worker(worker, tmp_path):
    assert worker.grade_path(_write(tmp_path, "solution.py", SOLUTION), seed=SEED).score == 100


PROBE = """
import os, torch
from dnnlpy.models import gpt, sampling
from dnnlpy._withheld import NotAvailableWhileGrading
raised = []
for name, call in (
    ("MiniGPT.generate", lambda: gpt.MiniGPT(11, 4, 8, 1, 1, 16).generate(torch.zeros(1, 2, dtype=torch.long), 2)),
    ("sampling.greedy", lambda: sampling.greedy(torch.zeros(1, 3))),
    ("gpt.sample_next_token", lambda: gpt.sample_next_token(torch.zeros(1, 3))),
):
    try:
        call()
    except NotAvailableWhileGrading:
        raised.append(name)
# The real decoder, as source or bytecode, anywhere the run can read: gpt.py's generate keeps the last
# position's logits in last_logits, sampling.py draws with torch.multinomial (the stubs have neither).
MARKERS = {"gpt": b"last_logits", "sampling": b"multinomial"}
found = []
for here, dirs, files in os.walk("/"):
    if here in ("/proc", "/sys", "/dev"):
        dirs[:] = []
        continue
    for file in files:
        stem = file.split(".")[0]
        if stem in MARKERS and file.endswith((".py", ".pyc")):
            try:
                with open(os.path.join(here, file), "rb") as fh:
                    if MARKERS[stem] in fh.read():
                        found.append(os.path.join(here, file))
            except OSError:
                pass
print("PROBE " + __import__("json").dumps({"raised": raised, "found": found}))
"""


def _probe_report(result) -> dict:
    line = next(x for x in result.run.stdout_tail.splitlines() if x.startswith("PROBE "))
    return json.loads(line[len("PROBE ") :])


# The probe walks every file a run can see (~10 s of a quiet machine's time): the cells' share of the wall limit
# (a fifth, ``runner.budget``) must hold it on a loaded CI machine twice as slow, with room to spare.
WALK_LIMITS = Limits(wall_seconds=240)


@NAMESPACES
def test_the_decoder_is_in_no_file_a_run_can_read_and_its_stubs_raise_on_both_paths(tmp_path):
    path = _write(tmp_path, "probe.py", SOLUTION + PROBE)
    worker = Worker(SPEC.name, WALK_LIMITS)
    try:
        warm = worker.grade_path(path, seed=SEED)
    finally:
        worker.close()
    fresh = grade_submission(spec=SPEC, path=path, seed=SEED, limits=WALK_LIMITS)
    for result in (warm, fresh):
        report = _probe_report(result)
        assert report == {"raised": ["MiniGPT.generate", "sampling.greedy", "gpt.sample_next_token"], "found": []}
        assert result.score == 100, result.output  # the solution's own loop is untouched


def test_a_demo_cell_that_calls_the_withheld_decoder_costs_nothing_and_needs_no_look(worker, tmp_path):
    """The chapter's demos may call the library's generate: in a graded run that cell raises the stub's
    exception, which is recorded as the cell's error (the student's page says why) and nothing else."""
    nb = nbformat.read(COURSE_DIR / "source" / "weight_tying" / "weight_tying.ipynb", as_version=4)
    demo = nbformat.v4.new_code_cell(
        "demo = gpt.MiniGPT(vocab_size=20, block_size=8, embed_dim=16, num_layers=1, num_heads=2, hidden_dim=32)\n"
        "print(demo.generate(torch.zeros(1, 3, dtype=torch.long), max_new_tokens=5))",
        metadata={"tags": ["demo"]},
    )
    nb.cells.append(demo)
    path = tmp_path / "weight_tying.ipynb"
    nbformat.write(nb, path)
    result = worker.grade_path(path, seed=SEED)
    assert result.score == 100 and result.status == "ok", result.output
    errors = [message for _, message in result.run.load_errors]
    assert len(errors) == 1 and errors[0].startswith("NotAvailableWhileGrading: "), errors
    assert "MiniGPT.generate is not available while grading" in errors[0]
    row = Row(uid="s", name="s", result=result, kind=triage(result))
    assert row.kind == "graded" and attention(ClassView(manifest=None, rows=[row]), lambda row: {}) == []
