"""Both sides: the toy selftest grader's message catalog, English and Chinese side by side (registered on import).

The hidden suite's words (``selftest.*``), which its self-check says too (``release.py``: what the release
carries), and what its self-check says of itself (``selftest.check.*``: the run's header, its practice group, each
check's title, what only the hidden suite checks); the self-check framework's own words are
``coursecheck/messages.py``.
"""

from __future__ import annotations

from autograder.protocol.said import LANGUAGES, Message, Said, register, render

__all__ = ["OWNER", "LANGUAGES", "CATALOG", "NAMES", "area_name", "misconception_title", "title"]

OWNER = "selftest"

_ENTRIES = {
    "selftest.no_evidence": (
        "no evidence for experiment {name}: the submission stopped before it ran (see run status)",
        "没有实验 {name} 的结果：提交在运行到这里之前就停止了（见运行状态）",
    ),
    "selftest.raised": ("add raised {error}", "add 抛出了异常「{error}」"),
    "selftest.not_tensor": (
        "add must return a plain torch.Tensor, got {kind}",
        "add 必须返回普通的 torch.Tensor，实际返回的是 {kind}",
    ),
    "selftest.subtraction": (
        "add returned a - b: subtraction instead of addition",
        "add 返回的是 a - b：做成了减法而不是加法",
    ),
    "selftest.not_sum": ("add(a, b) does not equal a + b", "add(a, b) 不等于 a + b"),
    "selftest.broadcast_shape": (
        "add of shapes (3, 1) and (1, 5) gave {got}, expected (3, 5)",
        "形状为 (3, 1) 与 (1, 5) 的 add 得到 {got}，应为 (3, 5)",
    ),
    "selftest.broadcast_values": ("add(col, row) does not equal col + row", "add(col, row) 不等于 col + row"),
    "misconception.subtraction": ("subtraction instead of addition", "做成了减法而不是加法"),
    # the self-check (assignments/source/selftest/selftest_checks/)
    "selftest.check.header": (
        "selftest self-check of {path}  (another file: {var}=path pytest)",
        "selftest 作业自检：{path}（要检查其他文件，请运行 {var}=<文件路径> pytest）",
    ),
    "selftest.check.group.add": ("add", "add 函数"),
    "selftest.check.title.test_add_returns_a_tensor": (
        "add returns a plain torch.Tensor",
        "add 返回普通的 torch.Tensor",
    ),
    "selftest.check.title.test_add_adds": (
        "add(a, b) is a + b for two tensors of one shape",
        "形状相同时 add(a, b) 等于 a + b",
    ),
    "selftest.check.title.test_add_broadcasts": (
        "add broadcasts shapes (3, 1) and (1, 5) to (3, 5), as a + b does",
        "add 像 a + b 一样把形状 (3, 1) 与 (1, 5) 广播成 (3, 5)",
    ),
    "selftest.check.covers.here": ("Then, on small tensors:", "然后用几个小张量检查："),
    "selftest.check.covers.seeds": ("other values, drawn from the grader's seed", "评分程序按随机种子生成的其他数值"),
}
# message id -> the misconception (marking.toml) it names
NAMES = {"selftest.subtraction": "subtraction"}
CATALOG: dict[str, Message] = {key: Message(en, zh, NAMES.get(key)) for key, (en, zh) in _ENTRIES.items()}
register(OWNER, CATALOG)


def area_name(area: str, language: str = "en") -> str:
    """The toy grader's areas have English names only."""
    return area


def misconception_title(name: str, language: str = "en") -> str:
    return render(Said(f"misconception.{name}"), language)


def title(readable: str, language: str = "en") -> str | None:
    """No titles: its tests are named by their readable names."""
    return None
