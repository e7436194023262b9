"""The trusted decoder of the evidence channel: plain, bounded data only; a refused frame costs only itself."""

from __future__ import annotations

import io
import zipfile

import torch
from hostile_frames import dag_list, framed, members, rezip, saved

from autograder.protocol.bounds import EvidenceBounds
from autograder.protocol.decode import decode_frames
from autograder.protocol.frames import HEADER, encode_frame


def test_decode_frames_drops_duplicates_and_refuses_what_is_not_a_frame():
    data = encode_frame("a", {"v": torch.ones(2)}) + encode_frame("b", {"v": 1}) + encode_frame("b", {"v": 2})
    bad = b"not a torch file"
    data += HEADER.pack(len(bad)) + bad + encode_frame("c", {"v": "x"})
    evidence, notes = decode_frames(data)
    assert set(evidence) == {"a", "c"}
    torch.testing.assert_close(evidence["a"]["v"], torch.ones(2))
    assert any("'b'" in n and "more than once" in n for n in notes)
    assert any("without a readable name refused" in n and "not a torch.save zip" in n for n in notes)


class Evil:  # a pickled arbitrary object is not plain evidence
    pass


def test_decode_frames_refuses_objects_and_oversized_frames():
    buf = io.BytesIO()
    torch.save({"name": "x", "record": {"v": Evil()}}, buf)
    data = HEADER.pack(len(buf.getvalue())) + buf.getvalue() + HEADER.pack(1 << 40) + b"zz"
    evidence, notes = decode_frames(data)
    assert evidence == {} and any("oversized" in n for n in notes)
    assert any("'x'" in n and "Evil" in n for n in notes)


def test_a_truncated_header_is_noted():
    evidence, notes = decode_frames(encode_frame("a", {"v": 1}) + b"\x00\x00")
    assert evidence == {"a": {"v": 1}} and notes == ["evidence ends with a truncated frame header"]


def test_a_hostile_frame_costs_only_its_own_record():
    honest = encode_frame("lm_identity", {"logits": torch.ones(2, 3)}) + encode_frame("gpt_loss", {"loss": 1.5})
    compressed = framed(rezip(members(saved({"name": "lm_grad", "record": {}})), zipfile.ZIP_DEFLATED))
    dag = framed(saved({"name": "gpt_grad", "record": {"error": dag_list(60)}}))
    expanded = framed(saved({"name": "gpt_shapes", "record": {"w": torch.zeros(1).expand(10**5, 10**5)}}))
    evidence, notes = decode_frames(compressed + dag + honest + expanded)
    assert set(evidence) == {"lm_identity", "gpt_loss"}
    joined = "\n".join(notes)
    assert "referenced twice" in joined and "'gpt_grad'" in joined and "'gpt_shapes'" in joined
    assert "compressed" in joined


def test_a_refused_frame_still_counts_as_sent():
    # A refused frame that said its name, then an honest-looking one of the same name: both are missing.
    data = framed(saved({"name": "lm", "record": {"e": dag_list(3)}})) + encode_frame("lm", {"v": 1})
    evidence, notes = decode_frames(data)
    assert evidence == {} and any("more than once" in n for n in notes)


def test_the_run_budget_refuses_the_frame_that_breaks_it_and_keeps_the_others():
    bounds = EvidenceBounds(run_tensor_bytes=3000, tensor_bytes=2048)
    data = b"".join(encode_frame(f"e{k}", {"w": torch.ones(256)}) for k in range(3))  # 1 KiB each
    evidence, notes = decode_frames(data, bounds)
    assert set(evidence) == {"e0", "e1"} and any("'e2'" in n and "total bound" in n for n in notes)
    evidence, notes = decode_frames(data * 2, EvidenceBounds(frames=4))  # e0 e1 e2 e0 | e1 e2 ignored
    assert set(evidence) == {"e1", "e2"} and notes[0] == "over 4 evidence frames: the rest is ignored"


def test_nothing_in_a_decoded_record_is_shared_or_costly_to_print():
    t = torch.arange(6.0)
    evidence, _ = decode_frames(encode_frame("a", {"x": t[:3], "y": t[3:], "z": [[1, 2], [3, 4]]}))
    x, y = evidence["a"]["x"], evidence["a"]["y"]
    assert x.untyped_storage().data_ptr() != y.untyped_storage().data_ptr()
    assert x.untyped_storage().nbytes() == 12 and len(str(evidence)) < 500


def test_a_complete_oversized_frame_is_skipped_and_the_next_one_read(monkeypatch):
    import autograder.protocol.decode as decode

    monkeypatch.setattr(decode, "MAX_FRAME_BYTES", 3000)  # an honest small frame is ~1 KB
    data = framed(b"x" * 5000) + encode_frame("after", {"v": 1})
    evidence, notes = decode_frames(data)
    assert evidence == {"after": {"v": 1}} and notes == ["evidence frame of 5000 bytes refused unread (over 0 MiB)"]
