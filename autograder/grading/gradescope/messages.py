"""Trusted: the engine's words at Gradescope's edge, English and Chinese side by side: what a student's upload
holds and which file of it is graded (``gradescope.run``), and the lines under each charge of a results.json
(``gradescope.results``). A part of the engine's catalog (``grading.catalog`` registers it with the rest): the
same rules, the same tests."""

from __future__ import annotations

__all__ = ["GRADESCOPE"]

GRADESCOPE: dict[str, tuple[str, str]] = {
    # a Gradescope upload (gradescope/run.py)
    "upload.none": (
        "No notebook found: upload {assignment}.ipynb (or a single .ipynb or .py file) and submit again.",
        "没有找到 notebook：请上传 {assignment}.ipynb（或者只上传一个 .ipynb 或 .py 文件），然后重新提交。",
    ),
    "upload.several": (
        "Your upload holds {count} files that could be the notebook ({files}) and none is named as the "
        "assignment's: upload only the one you want graded and submit again.",
        "你上传的文件里有 {count} 个都可能是作业 notebook（{files}），但没有一个用的是作业的文件名："
        "请只上传你要评分的那一个，然后重新提交。",
    ),
    "upload.editions.later": (
        "Your upload holds one notebook per edition of the assignment ({files}). The one saved later is graded: "
        "{graded}; not graded: {others}. To be graded on another, upload only that one.",
        "你上传的文件里，作业的每个版本各有一个 notebook（{files}）。评分的是保存得更晚的那一个：{graded}；"
        "不评分：{others}。想按另一个版本评分，请只上传那一个。",
    ),
    "upload.editions.together": (
        "Your upload holds one notebook per edition of the assignment ({files}). Their times are less than "
        "{seconds} s apart, too close to tell which you saved later, so by the course's rule the English edition "
        "is graded: {graded}; not graded: {others}. To be graded on another, upload only that one.",
        "你上传的文件里，作业的每个版本各有一个 notebook（{files}）。它们的时间相差不到 {seconds} 秒，"
        "分不出哪一个保存得更晚，所以按课程的规则评分的是英文版：{graded}；不评分：{others}。"
        "想按另一个版本评分，请只上传那一个。",
    ),
    "upload.others": (
        "Graded {graded}, the file named as the assignment's; also in your upload, not graded: {others}.",
        "评分的是以作业命名的文件 {graded}；你上传的其他文件不评分：{others}。",
    ),
    # a Gradescope result's lines under a charge (gradescope/results.py): the pages' words
    "gradescope.charged_test": ("- {name}: −{lost} of its {points}", "- {name}：该测试 {points} 分，扣 {lost} 分"),
    "gradescope.charged_part": (
        "- {name}: −{lost} of its {points} ({part})",
        "- {name}：该测试 {points} 分，扣 {lost} 分（{part}）",
    ),
    "gradescope.covered_test": (
        "- {name}: its {points} not charged again, within this area's fixed cost",
        "- {name}：该测试 {points} 分，已计入该评分项的固定扣分，不另扣分",
    ),
    "gradescope.covered_part": (
        "- {name}: its {points} not charged again, within this area's fixed cost ({part})",
        "- {name}：该测试 {points} 分，已计入该评分项的固定扣分，不另扣分（{part}）",
    ),
    # a test in an area whose cap sentence (below the tests) says what the area costs: its worth alone
    "gradescope.worth_test": ("- {name}: worth {points}", "- {name}：该测试 {points} 分"),
    "gradescope.worth_part": ("- {name}: worth {points} ({part})", "- {name}：该测试 {points} 分（{part}）"),
    # a test that costs nothing at all (its mistake costs 0 in its area: ShownCharge.free), as the pages say it
    "gradescope.free_test": ("- {name}: its {points} not charged", "- {name}：该测试 {points} 分，不扣分"),
    "gradescope.free_part": (
        "- {name}: its {points} not charged ({part})",
        "- {name}：该测试 {points} 分，不扣分（{part}）",
    ),
}
