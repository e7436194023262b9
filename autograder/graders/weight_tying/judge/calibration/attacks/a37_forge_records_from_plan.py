# expect: attack
# why: stub classes that raise; the runner's emit is patched to send records computed from the plan alone: TiedEmbeddingLM's logits as E[ids] @ E.T on the judge's tables, its gradient with one autograd call, the table after one SGD step, and the wrapper's positional table from the runner's own values.py. It writes no class that works, so every point it earns is a grader defect (it scored 37 before records were sealed).
import sys

import torch
import torch.nn as nn


# Stub classes: they raise, so that any point this file earns is a grader defect.
class TiedEmbeddingLM(nn.Module):
    def __init__(self, vocab_size, embed_dim=128):
        raise NotImplementedError("TiedEmbeddingLM is not written")


class MiniGPTWithWeightTying(nn.Module):
    def __init__(self, vocab_size, block_size, embed_dim=128, num_layers=4, num_heads=4,
                 hidden_dim=512, dropout=0.0):
        raise NotImplementedError("MiniGPTWithWeightTying is not written")


def _find_local(name):
    frame = sys._getframe(1)
    while frame is not None:
        if name in frame.f_locals:
            return frame.f_locals[name]
        frame = frame.f_back
    return None


_job = _find_local("job")
_plan = _job.get("plan", {}) if isinstance(_job, dict) else {}
_TIED = {"head_is_embed": True, "same_data_ptr": True}


def _follow(table, ids):
    """What a tied TiedEmbeddingLM reports after `table` is written into token_embed.weight."""
    return {**_TIED, "head_after_inplace": table.clone(), "head_after_forward": table.clone(),
            "logits": table[ids] @ table.T}


def _lm_records(p):
    v, d = p["vocab_size"], p["embed_dim"]
    names = [["token_embed.weight", [v, d]], ["lm_head.weight", [v, d]]]
    out = {
        "lm_identity": {**_follow(p["W1"], p["ids"]), "n_param_objects": 1, "unique_numel": v * d,
                        "param_names": names, "embed_in_parameters": True, "head_has_bias": False},
        "lm_reload": _follow(p["W2"], p["ids"]),
        "lm_float64": {**_follow(p["W3"], p["ids"]), "embed_weight": p["W3"].clone()},
        "lm_shapes": {"cases": [{"embed_weight": c["W"].clone(), "head_weight": c["W"].clone(),
                                 "hidden": c["W"][c["ids"]], "logits": c["W"][c["ids"]] @ c["W"].T}
                                for c in p["shapes"]]},
    }
    table = p["W1"].clone().requires_grad_(True)
    logits = table[p["ids"]] @ table.T
    (logits * p["G"]).sum().backward()  # the one autograd call: both paths' gradients, summed
    after = (table - p["lr"] * table.grad).detach()
    out["lm_grad"] = {"logits": logits.detach(), "grad_same_object": True, "embed_grad": table.grad.clone(),
                      "head_grad": table.grad.clone(), "table_after": after, "head_after": after.clone()}
    return out


def _gpt_identity(p):
    from autograder.graders.weight_tying.runner.values import judge_table, judge_values
    from dnnlpy.models.gpt import MiniGPT

    cfg = dict(p["cfg"])
    shapes = {k: list(t.shape) for k, t in MiniGPT(weight_tying=True, **cfg).state_dict().items()}
    v, d, block = cfg["vocab_size"], cfg["embed_dim"], cfg["block_size"]
    table = judge_table(p["tables"]["identity"], (v, d))
    pos = judge_values(p["values"]["identity"], "pos_embed.weight", (block, d))
    return {**_TIED, "head_after_inplace": table, "head_after_forward": table.clone(),
            "logits": torch.zeros(*p["ids"].shape, v), "n_param_objects": 1, "unique_numel": 0, "param_names": [],
            "embed_in_parameters": True, "head_is_pos": False, "pos_before": pos, "pos_after": pos.clone(),
            "state_shapes": shapes}


try:
    _FORGED = _lm_records(_plan["lm"])
    _FORGED["gpt_identity"] = _gpt_identity(_plan["gpt"])
except Exception as exc:  # no plan found: nothing to forge
    print("wtcal: no plan to forge from:", type(exc).__name__, exc, flush=True)
    _FORGED = {}

_emit = _find_local("emit")
if _emit is not None and _FORGED:
    _original_call = type(_emit).__call__

    def _forged_call(self, name, record):
        return _original_call(self, name, _FORGED.get(name, record))

    type(_emit).__call__ = _forged_call
