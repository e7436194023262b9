"""scripts/records_dump.py: two dumps of the corpus's experiment records compared, down to a tensor's last bit."""

from __future__ import annotations

import torch


def _records(logits: torch.Tensor, seal: str = "abc", shapes=(2, 3)) -> dict:
    case = {"logits": logits, "state_shapes": {"token_embed.weight": list(shapes)}}
    return {"7:solution": {"gpt_heads": {"cases": [case], "seal": seal}}, "7:attacks/a05.py": "child ended with 1"}


def _diff(tmp_path, before: dict, after: dict, capsys, script) -> tuple[int, str]:
    torch.save(before, tmp_path / "a.pt")
    torch.save(after, tmp_path / "b.pt")
    code = script("records_dump").main(["diff", str(tmp_path / "a.pt"), str(tmp_path / "b.pt")])
    return code, capsys.readouterr().out


def test_identical_dumps_compare_clean(tmp_path, capsys, script):
    logits = torch.linspace(-1, 1, 6).reshape(2, 3)
    code, out = _diff(tmp_path, _records(logits), _records(logits.clone()), capsys, script)
    assert code == 0 and "0 difference(s)" in out


def test_one_bit_of_a_tensor_a_sign_of_zero_a_seal_and_a_shape_each_count(tmp_path, capsys, script):
    logits = torch.linspace(-1, 1, 6).reshape(2, 3)
    nudged = logits.clone()
    nudged[0, 1] = torch.nextafter(nudged[0, 1], torch.tensor(2.0))
    for after in (_records(nudged), _records(logits, seal="abd"), _records(logits, shapes=(2, 4))):
        code, out = _diff(tmp_path, _records(logits), after, capsys, script)
        assert code == 1 and "1 difference(s)" in out, out
    plus, minus = torch.zeros(2, 3), torch.zeros(2, 3)
    minus[0, 0] = -0.0
    code, out = _diff(tmp_path, _records(plus), _records(minus), capsys, script)
    assert code == 1 and "gpt_heads.cases[0].logits" in out
