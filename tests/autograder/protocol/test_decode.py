"""The trusted decoder of the evidence channel: plain, bounded data only; a refused frame costs only itself."""

from __future__ import annotations

import torch
from hostile_frames import blob, entry, frame, framed, nested, safetensors_file

from autograder.protocol.bounds import DEFAULT_BOUNDS, EvidenceBounds
from autograder.protocol.decode import decode_frame, decode_frames
from autograder.protocol.frames import HEADER, encode_frame

ONE = safetensors_file({"t0": entry("F32", [1], 0, 4)}, bytes(4))  # one float tensor, named t0


def refusal(data: bytes, bounds: EvidenceBounds = DEFAULT_BOUNDS) -> str:
    """The one note decoding `data` (one frame) gives, which must refuse it."""
    evidence, notes = decode_frames(data, bounds)
    assert evidence == {} and len(notes) == 1, notes
    return notes[0]


def test_decode_frames_drops_duplicates_and_refuses_what_is_not_a_frame():
    data = encode_frame("a", {"v": torch.ones(2)}) + encode_frame("b", {"v": 1}) + encode_frame("b", {"v": 2})
    bad = b"not a frame at all"
    data += HEADER.pack(len(bad)) + bad + encode_frame("c", {"v": "x"})
    evidence, notes = decode_frames(data)
    assert set(evidence) == {"a", "c"}
    torch.testing.assert_close(evidence["a"]["v"], torch.ones(2))
    assert any("'b'" in n and "more than once" in n for n in notes)
    assert any("without a readable name refused" in n for n in notes)


def test_a_pickle_is_never_read():
    import io

    buf = io.BytesIO()
    torch.save({"name": "x", "record": {"v": torch.ones(2)}}, buf)  # the former format: refused unread
    data = HEADER.pack(len(buf.getvalue())) + buf.getvalue() + HEADER.pack(1 << 40) + b"zz"
    evidence, notes = decode_frames(data)
    assert evidence == {} and any("oversized" in n for n in notes)
    assert any("without a readable name refused" in n for n in notes)


def test_a_truncated_header_is_noted():
    evidence, notes = decode_frames(encode_frame("a", {"v": 1}) + b"\x00\x00")
    assert evidence == {"a": {"v": 1}} and notes == ["evidence ends with a truncated frame header"]


def test_a_hostile_frame_costs_only_its_own_record():
    honest = encode_frame("lm_identity", {"logits": torch.ones(2, 3)}) + encode_frame("gpt_loss", {"loss": 1.5})
    huge_table = framed(blob({"name": "lm_grad", "record": {}}, HEADER.pack(0)[:0] + b"\xff" * 8 + b"{}"))
    bomb = framed(blob(nested(100_000, "gpt_grad")))
    lying = frame(
        "gpt_shapes", {"w": {"$tensor": "t0"}}, safetensors_file({"t0": entry("F32", [10**5, 10**5], 0, 4)}, bytes(4))
    )
    evidence, notes = decode_frames(huge_table + bomb + honest + lying)
    assert set(evidence) == {"lm_identity", "gpt_loss"}
    joined = "\n".join(notes)
    assert "'lm_grad'" in joined and "'gpt_grad'" in joined and "'gpt_shapes'" in joined
    assert "tensor table of" in joined and "values" in joined and "needs" in joined


def test_a_refused_frame_still_counts_as_sent():
    # A refused frame that said its name, then an honest-looking one of the same name: both are missing.
    data = framed(blob(nested(100, "lm"))) + encode_frame("lm", {"v": 1})
    evidence, notes = decode_frames(data)
    assert evidence == {} and any("more than once" in n for n in notes)
    assert "for 'lm' refused" in notes[0] and "levels deep" in notes[0]


def test_tensor_references_name_each_tensor_once():
    assert "does not hold" in refusal(frame("a", {"w": {"$tensor": "t9"}}, ONE))
    assert "does not hold (or holds once)" in refusal(frame("a", {"w": {"$tensor": "t0"}, "v": {"$tensor": "t0"}}, ONE))
    assert "no value refers to it" in refusal(frame("a", {"w": 1}, ONE))
    assert "not a name" in refusal(frame("a", {"w": {"$tensor": 0}}, ONE))
    got, _ = decode_frames(frame("a", {"w": {"$tensor": "t0", "other": 1}, "v": {"$tensor": "t0"}}, ONE))
    assert got["a"]["w"] == {"$tensor": "t0", "other": 1}  # with another key, a dict is just a dict


def test_a_frame_is_a_name_and_a_record_dict():
    for bad in (
        {"name": "a"},
        {"name": "a", "record": [1]},
        {"name": 1, "record": {}},
        {"name": "a", "record": {}, "x": 1},
    ):
        assert 'a frame must be {"name": str, "record": dict}' in refusal(framed(blob(bad)))
    assert "claims 99 bytes" in refusal(framed(b"\x63" + bytes(7) + b"{}"))
    assert "no value refers to it" in refusal(frame("a", {"$tensor": "t0"}, ONE))  # a record is never a tensor
    assert "too short" in refusal(framed(b"{}"))


def test_strings_values_and_nesting_are_bounded():
    assert "a string of 9000 characters" in refusal(frame("a", {"e": "w" * 9000}))
    assert "a string of 9000 characters" in refusal(frame("a", {"w" * 9000: 1}))  # keys too
    assert "over 10000 characters" in refusal(frame("a", {"e": ["w" * 8000] * 2}), EvidenceBounds(total_chars=10_000))
    assert "over 20 values" in refusal(frame("a", {"e": list(range(20))}), EvidenceBounds(nodes=20))
    deep: list = []
    for _ in range(29):  # the frame's dict, the record and 30 lists: 32 levels, at the bound
        deep = [deep]
    assert decode_frames(frame("a", {"w": deep}))[0]["a"] == {"w": deep}
    assert "levels deep" in refusal(frame("a", {"w": [deep]}))
    leaf: object = {"$tensor": "t0"}  # a tensor is a leaf: its reference's dict is no level
    for _ in range(30):
        leaf = [leaf]
    got = decode_frames(frame("a", {"w": leaf}, ONE))[0]["a"]["w"]
    for _ in range(30):
        got = got[0]
    assert type(got) is torch.Tensor


def test_lone_surrogates_are_repaired_and_nan_is_a_float():
    evidence, _ = decode_frames(frame("a", {"e": "a\ud800b", "\udcff": float("nan")}))
    assert evidence["a"]["e"] == "a\\ud800b" and "\\udcff" in evidence["a"]
    evidence["a"]["e"].encode("utf-8")


def test_the_name_is_known_even_when_the_record_is_refused():
    facts, record, refused = decode_frame(blob(b'{"name": "lm_grad", "record": {"v": 1e1, "v": 2}}'))
    assert record is None and facts.name == "lm_grad" and "key twice" in refused
    facts, record, refused = decode_frame(blob(b'{"record": {}, "name": "late"}' + b"x"))
    assert record is None and facts.name is None and "not valid JSON" in refused


def test_the_run_budget_refuses_the_frame_that_breaks_it_and_keeps_the_others():
    bounds = EvidenceBounds(run_tensor_bytes=3000, tensor_bytes=2048)
    data = b"".join(encode_frame(f"e{k}", {"w": torch.ones(256)}) for k in range(3))  # 1 KiB each
    evidence, notes = decode_frames(data, bounds)
    assert set(evidence) == {"e0", "e1"} and any("'e2'" in n and "total bound" in n for n in notes)
    evidence, notes = decode_frames(data * 2, EvidenceBounds(frames=4))  # e0 e1 e2 e0 | e1 e2 ignored
    assert set(evidence) == {"e1", "e2"} and notes[0] == "over 4 evidence frames: the rest is ignored"


def test_decoding_work_is_bounded_per_run_refused_frames_included():
    parsed = [frame(f"x{k}", {"e": list(range(900)), "z": "w" * 9000}) for k in range(3)]  # refused once parsed
    evidence, notes = decode_frames(
        b"".join(parsed) + encode_frame("late", {"v": 1}), EvidenceBounds(run_values_read=2000)
    )
    assert set(evidence) == {"late"} and all("a string of 9000" in n for n in notes[:2])
    assert "'x2'" in notes[2] and "values" in notes[2]  # what the first two parsed is left for the third
    exact = [frame(f"y{k}", {"e": list(range(98))}) for k in range(3)]
    cost = decode_frame(exact[0][HEADER.size :])[0].values_read  # values parsed: the JSON's and the table's
    evidence, notes = decode_frames(b"".join(exact), EvidenceBounds(run_values_read=2 * cost))
    assert set(evidence) == {"y0", "y1"} and notes == [
        "this run's evidence took all the decoding work its bound allows: the rest is ignored"
    ]
    tensors = b"".join(encode_frame(f"e{k}", {"w": torch.ones(1), "v": torch.ones(1)}) for k in range(3))
    evidence, notes = decode_frames(tensors, EvidenceBounds(run_tensors=5))
    assert (
        set(evidence) == {"e0", "e1"} and "'e2'" in notes[0] and "tensors in the frame, over the bound of 1" in notes[0]
    )


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
