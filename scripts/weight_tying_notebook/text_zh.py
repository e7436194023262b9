"""中文版的正文：lessons.py 中每个键对应一段 markdown（`{{name}}` 由构建脚本填入）。

The Chinese edition's prose, one text per key of lessons.py. Written for this kit, in its own words; code,
test cells and nbgrader metadata are shared with the English edition and never translated.
"""

from __future__ import annotations

from autograder.graders.weight_tying.messages import area_name

from .comments_zh import COMMENTS

__all__ = [
    "LANGUAGE",
    "TEXT",
    "AREA_NAMES",
    "AREA_SPLIT",
    "TABLE_HEADER",
    "JOIN_WRAPPED_LINES",
    "PRINTED",
    "PRACTICE_CHECK",
    "README",
    "COMMENTS",
]

LANGUAGE = "zh"
# The graded areas' Chinese names: the grader's message catalog, so the notebook and the feedback agree.
AREA_NAMES = {
    area: area_name(area, "zh")
    for area in ("parameter identity", "shape flow", "parameter counts", "gradient accumulation", "argmax generation")
}
# A line break inside a paragraph renders as a space, unwanted between Chinese characters: the build joins lines.
JOIN_WRAPPED_LINES = True
TABLE_HEADER = ("评分项", "练习 1", "练习 2", "合计")
# How a graded area's points fall between the exercises (points.area_split).
AREA_SPLIT = {"both": "练习 1 占 {ex1} 分，练习 2 占 {ex2} 分", "one": "全部在练习 {n}"}
# A practice cell's first lines ({group}: the catalog's check.group.*; {key}: the English key it gives practice()).
PRACTICE_CHECK = "练习检查（{group}）：0 分，成绩由隐藏测试给出\n" + (
    'practice("{key}", ...) 的第一个参数是检查组的内部名称，请勿修改'
)
# What the demo cells print and draw (text_en.py says how). The plot's words hold no Chinese character:
# matplotlib's default font has none and would draw boxes, so they are the book's terms, code and symbols.
PRINTED = {
    "embedded": "x",
    "shape_row": "{name:>16}：{tuple(tensor.shape)}",
    "vocab_size": "vocab_size：{tokenizer.vocab_size}",
    "encoded_ids": "ids：{encoding.ids}",
    "generated_ids": "ids：{out[0].tolist()}",
    "lookup_same": "两种做法得到的向量相同：{same}",
    "lookup_row": "表的第 2 行：{embedding.weight[2].detach()}",
    "sample_text": "weight tying 让两端共享同一张表。",
    "tokens": "token 序列：{encoding.tokens}",
    "round_trip": "解码回文本：{tokenizer.decode(encoding.ids)}",
    "token_table": "token embedding 表的形状：{tuple(token_table.weight.shape)}",
    "position_table": "位置表的形状：{tuple(position_table.weight.shape)}",
    "ids_to_x": "ids 的形状为 {tuple(ids.shape)}，相加后 x 的形状为 {tuple(x.shape)}",
    "rows_sum_to_1": "每个位置的概率之和都是 1：{rows_sum_to_1}",
    "loss_on_logits": "用 logits 计算的 loss：{loss_on_logits:.3f}",
    "loss_on_probs": (
        "用概率计算的 loss（错误做法）：{loss_on_probs:.3f}，只能落在 {math.log(V - 1 + math.e) - 1:.3f} 到 "
        "{math.log(V - 1 + math.e):.3f} 之间；ln V = {math.log(V):.3f}"
    ),
    "rows_touched": "查表路径用到的行：{touched}",
    "grad_is_the_sum": "共享的 .grad 等于查表路径的梯度加上 LM head 路径的梯度：{summed}",
    "one_grad": "两个名字指向同一个 .grad 对象：{one_grad}",
    "untied_ends": "不共享时，两端共有 {untied:,} 个参数",
    "tied_ends": "共享之后，两端共有 {tied:,} 个参数",
    "saved": "省下 {untied - tied:,} 个参数，即 {saved_bytes / 1e6:.1f} MB（{saved_bytes / 2**20:.1f} MiB）",
    "n_lm": "TiedEmbeddingLM(1000, 64) 有 {n_lm:,} 个参数，正好是 V * D",
    "minigpt_counts": (
        "MiniGPT 不共享权重时有 {n_untied:,} 个参数，共享之后有 {n_tied:,} 个，相差 {n_untied - n_tied:,}，正好是 V * D"
    ),
    "plot_untied": "weight_tying=False: 2VD",
    "plot_tied": "weight_tying=True: VD",
    "plot_gpt2": "GPT-2: V = 50,257",
    "plot_x": "V",
    "plot_y": "2VD, VD (×10⁶)",
    "plot_title": "token embedding + LM head, D = {D}",
    "head_is_the_table": "token embedding 表就是 LM head 的权重：{tied}",
    "positional_table": "位置表的形状：{tuple(inner.pos_embed.weight.shape)}，单独一张表，不参与共享",
    "prompt": "共享权重",
    "next_id": "下一个 token 的 id：{next_id}",
    "generated_text": "生成的文本：{tokenizer.decode(out[0])!r}",
}
TEXT = {
    "intro": r"""
# Weight Tying：输入端和输出端共享同一张词表向量表

GPT 一类的模型在两端都要和词表打交道：在输入端，**token embedding** 把 token id 变成向量；在输出端，
**LM head** 把 hidden state 变成词表中每个 token 的一个分数。本 notebook 先分别看这两端，再让它们共享同一张表，
这就是 **weight tying**（共享权重）。

你要实现两个类。第 6 节的 `TiedEmbeddingLM` 是一个最小模型，只包含共享同一张表的 token embedding 和
LM head；第 9 节的 `MiniGPTWithWeightTying` 以 `dnnlpy` 的 `MiniGPT` 为基础：启用它的 weight tying，再亲手写一个
贪心生成的 `generate` 循环。

**怎么做题**

- 在 `# YOUR CODE HERE` 处写代码，替换掉 `raise NotImplementedError()`。类名和方法签名不要改，评分程序
  正是按这些名字调用的。
- 提交前执行“Kernel → Restart Kernel and Run All Cells…”（中文界面为“内核 → 重启内核并运行所有单元格…”），
  然后保存。评分程序会在一个新进程里从头运行你保存的 notebook，再对运行后得到的这两个类评分。
- 评分程序不运行练习检查单元格。演示单元格的结果不会被其他单元格用到；只要不改动演示单元格，评分程序和
  `pytest` 自检都会跳过它们，其中的报错不会被报告，也不影响成绩；改动过的演示单元格则照常运行，出错会被报告。
  演示单元格是：
  - 第 1 至 5 节的示例；
  - 第 7 节调用你的 `TiedEmbeddingLM` 的那个单元格；
  - 第 8 节的计算和图；
  - 第 10 节“动手试试”。

**怎么评分**

- 成绩由课程的自动评分程序给出：它在沙箱里用一套隐藏测试（共 {{total}} 分）检查你的两个类，所用的尺寸、
  随机种子和权重都由它自己决定。任何正确的实现都能拿满分，不论写法如何；
  只有第 9 节对 `generate` 的写法另有一条要求。
- 同一种常见错误在一道练习中只算一次。某种常见错误在某一评分项里只扣一个固定分数（可以是 0），而不是把因它失败的
  测试逐个扣分；这个固定分数不超过这些测试的分值之和。例如某项固定扣 6 分，涉及的测试共 9 分，就只扣 6 分。因其他原因
  失败的测试照常扣分。
- 反馈会指出每个错误和它扣了多少分，各项扣分加起来正好等于被扣的总分。
- 各评分项和各练习的分值如下：

{{points_table}}

**提交之前自查**：以下两种自查方式都**不计分**。

- 每道练习后面以 `# 练习检查` 开头的单元格：它们用你写的类运行与 `pytest` 自检相同的检查，每项检查输出
  一行结果。
- 自检：在本文件夹打开终端，运行 `pytest`。它和评分程序一样，在新进程里从头运行 notebook，再取出你写的两个类。
  检查不通过时，它会指出是哪种常见错误、该重读哪一节。关于自检，还有三点：
  - 它读取的是**磁盘上的 notebook 文件，所以先保存**（Ctrl+S）。
  - 它不会卡住：运行超过 {{step_seconds}} 秒的单元格或检查（多半是死循环）会被终止，并指出是哪一个；整个自检
    最多运行 {{run_minutes}} 分钟。
  - pytest 自己的提示是英文的：`FAILED` 表示这项检查没有通过，`skipped` 表示它在等前面的检查通过，还没有运行。

记号：`B` 为 batch 大小，`T` 为序列长度，`D` 为 hidden size（每个向量的维度），`V` 为词表大小。
""",
    "shapes": r"""
## 1. 同一个词表，两个方向

在输入端，token embedding 是一张查表矩阵 *E*（下文称 token embedding 表），形状为 `(V, D)`，每个 token
占一行：token *i* 对应向量 *E*<sub>*i*</sub>。在输出端，LM head 是一个线性层，它的权重 *W*<sub>out</sub>
形状同样是 `(V, D)`：
位置 *t* 上 token *j* 的分数（logit）是位置 *t* 的 hidden state *h*<sub>*t*</sub> 与 *W*<sub>out</sub>
第 *j* 行的内积 *h*<sub>*t*</sub> · *W*<sub>out,*j*</sub>。

形状相同，方向相反：输入端由 id 得到向量，输出端由向量得到每个 id 的分数。整个过程中形状依次是
`(B, T) → (B, T, D) → (B, T, V)`。
""",
    "lookup": r"""
## 2. embedding 是查表，而不是拿 id 做算术

token id 只是编号，不是数量：id 503 并不比 id 12“大”，两个 id 之间的差值也毫无意义，所以模型从不直接拿
id 做运算。从数学上看，查 token *i* 的 embedding 等于用它的 one-hot 行向量 *e*<sub>*i*</sub>（长度为 *V*，
只有一个 1）去乘 *E*，结果正好选出第 *i* 行。如果真给每个 token 都构造一个长度为 *V* 的 one-hot 向量，
既费内存又费时间，所以 `nn.Embedding` 直接按下标取行。两种做法得到的向量完全相同：
""",
    "tokenizer": r"""
## 3. `V` 从哪里来：tokenizer

`V` 不是模型可以随意选的：它就是 tokenizer 词表的大小，tokenizer 能产生的每个 id 都必须对应 *E* 的一行
（以及 logits 的一列）。下面在 `dnnlpy` 自带的语料上训练一个小的字节级 BPE tokenizer（词表大小取 300，
训练很快；其中 256 个是单字节 token，1 个是特殊 token，其余是合并得到的 token）：
""",
    "tokenizer_after": r"""
词表只有 300 个条目，合并出来的 token 很少：英文部分只有 `ing`、`Ġt` 这样的常见片段被合并（`Ġ` 表示前面有
一个空格），`weight` 这样的词仍被拆成一个个字母。每个汉字在 UTF-8 中占 3 个字节，语料里又没有汉字，tokenizer
学不到汉字字节的合并，所以每个字节各成一个 token，也就是上面打印出来的那些像乱码一样的字符。解码时，这些字节
又会拼回原来的汉字。

换一个 tokenizer，`V` 也跟着变，token embedding 表和 LM head 都得重新建。一个训练好的模型，其权重只对训练时所用
的 tokenizer 产生的 token id 有意义。
""",
    "positions": r"""
## 4. 位置有自己的表，而且从不参与共享

GPT 还有一张 positional embedding 的表（下文简称位置表）：它是第二张查表矩阵，
形状为 `(block_size, D)`，按位置 `0 … T-1` 而不是按 token id 取行。token embedding 和 positional embedding
的查表结果相加之后，每个位置上的向量既带有“是**哪个** token”的信息，也带有“在序列中**哪个位置**”的信息。
LM head 要预测的是下一个 token **是哪一个**，从来不是位置，
所以只有 token embedding 表能和输出端的 LM head 共享，位置表始终独立。
""",
    "logits": r"""
## 5. 输出的是 logits，不是概率

LM head 在每个位置给出 *V* 个实数：**logits**，即未归一化的分数。softmax 把它们变成下一个 token 的概率分布：
*p*<sub>*j*</sub> = exp(logit<sub>*j*</sub>) / Σ<sub>*k*</sub> exp(logit<sub>*k*</sub>)。

计算交叉熵（cross entropy）的函数，例如 `dF.cross_entropy_loss` 和 `torch.nn.functional.cross_entropy`，
内部会先做 `log_softmax`，所以输入应当是 logits。如果传进去的是概率，就等于做了两次 softmax：代码照样能跑，
算出的 loss 却几乎不反映模型的好坏。

原因在于概率的取值范围。概率都在 0 和 1 之间，而且加起来等于 1，所以第二次 softmax 的输入彼此相差不超过 1，
输出接近均匀分布（任意两个概率之比不超过 e）。结果是：不管模型给出什么概率，loss 总在
ln(*V* − 1 + e) − 1 到 ln(*V* − 1 + e) 之间，这个区间的宽度只有 1，而 ln *V* 就落在这个区间里（靠近上端）。

ln *V* 正是一个什么都没学到、给每个 token 相同概率的模型的 loss。因此无论模型学得多好，用概率算出的
loss 都离它不到 1，训练时也几乎不下降。

**为什么是这个范围（选读）：** 设 *y* 是要预测的 token，*p* 是模型给出的概率，这时的 loss 是
ln Σ<sub>*k*</sub> exp(*p*<sub>*k*</sub>) − *p*<sub>*y*</sub>。它是这些概率的凸函数（前一项是凸函数，
后一项是线性的），所以最大值在某个“一个概率为 1、其余都为 0”的分布上取到：这个概率属于别的 token 时
loss 是 ln(*V* − 1 + e)，属于 *y* 时是 ln(*V* − 1 + e) − 1。后者也是最小值：从任何一个别的 token *k*
那里挪一点概率给 *y*，loss 沿这个方向的变化率（方向导数）是 *q*<sub>*y*</sub> − *q*<sub>*k*</sub> − 1
（*q* 是第二次 softmax 的输出），总是小于 0，所以概率越集中到 *y* 上，loss 越小。

下面取 *V* = 100：ln *V* ≈ 4.61，这个区间约为 3.62 到 4.62。拿一个每个位置都预测正确、而且很有把握的模型比较一下：
用 logits 算出的 loss 要小得多，用概率算出的却落在这个区间里。
""",
    "exercise_1": r"""
## 6. 练习 1：`TiedEmbeddingLM`（{{ex1}} 分）

既然两端各有一张对应同一词表的 `(V, D)` 表，那就让它们共享**同一张**表：这样位置 *t* 上 token *j* 的分数是
*h*<sub>*t*</sub> · *E*<sub>*j*</sub>，一个 token 在输入端的向量，也就是它在输出端被打分时所用的向量。请实现：

- `self.token_embed`：`nn.Embedding(vocab_size, embed_dim)`，权重形状 `(V, D)`；
- `self.lm_head`：一个 `D → V`、**不带偏置**的线性层（`dnn.Linear`），它的 `.weight` 与
  `self.token_embed.weight` 是**同一个 `nn.Parameter` 对象**：一张表，而不是数值相等的两张表；
- `forward(input_ids)`：`(B, T)` int64 → logits `(B, T, V)` = *E*[`input_ids`] *E*<sup>⊤</sup>
  （不加 positional embedding，也不做 softmax）。

下面几种写法看起来几乎正确，评分程序都能识别，并在反馈中指出：

- **复制**这张表（`.clone()`、`copy_`、`copy.deepcopy`）：得到两张表，第一次优化器更新之后就各走各的；
- 只共享 `.data`：共用同一块内存，却是两个参数对象，两端的梯度永远汇不到一起；而且一旦把模型转成别的 dtype 或
  搬到别的设备上（`.to(torch.float64)`、`.half()`），或者用 `copy.deepcopy` 复制模型，两者又各有各的内存；
- 在 `forward` 里才让两者共享，而不是在 `__init__` 里一次做好；
- 给 LM head 加偏置，或者返回概率（softmax）而不是 logits。
""",
    "gradients": r"""
## 7. 两端的梯度相加

共享的这张表在一次 forward 里被用了两次：输入端按 token id **读取**其中若干行；输出端拿每个 hidden state
与表中的**每一行**做内积，给词表里的每个 token **打分**。这就是两条使用路径：查表路径和 LM head 路径。
反向传播只有一次：两条路径各自产生一份梯度，autograd 把它们累加进
同一个 `.grad`；随后优化器用这个总梯度把表更新一次。这既不是“两份副本各自更新”，也不是“梯度乘以 2”。
为了看清楚，给两条路径各配一份独立的表副本，再比较梯度。

下面的单元格是演示：它调用你写的 `TiedEmbeddingLM`，但没有别的单元格用到它算出的任何东西。和其他原样保留的
演示单元格一样，评分和自检时它都不会运行（哪些单元格会运行，见开头的“怎么做题”）。
""",
    "savings": r"""
## 8. 共享权重省下了多少参数

不共享时两端共有 2*VD* 个参数，共享之后只有 *VD* 个。按 GPT-2 的规模（*V* = 50,257，*D* = 768），每个
float32 参数占 4 字节：
""",
    "savings_after": r"""
教材里的同一个计算取 *V* = 50000，并把字节数除以 1024²，所以它写的“146.4844 MB”其实是 MiB（按 10⁶ 字节算是
153.6 MB）；这里用的是 GPT-2 实际的词表大小 50,257，并把 MB 和 MiB 分开写，所以两边的数字不同。

省下的量随词表大小线性增长；对小模型来说，两端的参数甚至可能占到整个模型的大半。不过省参数并不是唯一的
好处。共享权重还相当于给两端加了一个约束：两端对同一个 token 使用同一个向量。两端处理的本来就是
同一个词表里的 token，所以这个约束很自然。

下图画的是 *D* = 768 时两端合计的参数量：横轴是词表大小 *V*，纵轴的单位是百万个参数（×10⁶），
上面一条线是不共享时的 2*VD*，下面一条是共享之后的 *VD*，竖直的点线标出 GPT-2 的 *V* = 50,257。
（图中的文字只用符号和英文术语，因为 `matplotlib` 的默认字体显示不了汉字。）
""",
    "exercise_2": r"""
## 9. 练习 2：`MiniGPTWithWeightTying`（{{ex2}} 分）

`dnnlpy.models.gpt.MiniGPT` 是一个完整的 GPT，包括 token embedding、positional embedding、采用
pre-LayerNorm 的 GPT block、末尾的 LayerNorm 和 LM head；它的 `weight_tying` 参数决定 LM head 是否与
token embedding 共享同一张表。默认不共享：不传这个参数时，LM head 保留自己的一张表（教材里也是显式传入
`weight_tying=True` 才启用共享）。
请用它实现 `MiniGPTWithWeightTying`：

- `__init__`：创建 `self.minigpt`，它是一个 `gpt.MiniGPT`，超参数与传入的完全一致（七个参数都要传下去），
  并启用 weight tying。
- `forward(input_ids)`：`(B, T)` → logits `(B, T, V)`。
- `loss(input_ids, targets=None)`：返回一个标量，即在所有被预测的位置上，预测下一个 token 的交叉熵的**平均值**。
  `targets` 有三种形式，评分程序三种都会检查：

  | 调用 | 模型读入 | 需要预测 |
  |---|---|---|
  | `loss(ids)` | `ids[:, :-1]` | `ids[:, 1:]` |
  | `loss(ids, targets)`，`targets` 形状为 `(B, T-1)`（教材里的写法） | `ids[:, :-1]` | `targets` |
  | `loss(ids, targets)`，`targets` 形状为 `(B, T)`（nanoGPT 的写法：已经错开一位） | `ids` | `targets` |

  `MiniGPT.loss` 正是这样处理的，可以直接调用它；用 `F.cross_entropy` 或 `dF.cross_entropy_loss` 自己写也
  可以。`targets` 是其他形状时应当报错（这一点不计分）。
- `generate(input_ids, max_new_tokens)`：**由你自己编写**的贪心生成，一次生成一个 token。每一步都要：先只
  保留最后 `block_size` 个 token（位置表只有 `block_size` 行），再用 `self.minigpt` 算出 logits，对
  **最后一个**位置的 logits 取 `argmax`（不要采样），然后把得到的 token 接到序列末尾。最后返回前缀加上新生成的 token，
  形状为 `(B, T + max_new_tokens)`，dtype 为 int64。

  生成时要关闭 dropout。`dropout > 0` 的模型处于训练模式时，每次 forward 都会随机把一部分激活置零，logits 也随之
  抖动：两个 logit 相差不大时，argmax 可能换成另一个 token，同一段前缀两次生成的结果就可能不同。因此，`generate`
  应当先调用 `self.eval()` 把模型切换到评估模式；评分程序也会在模型带着 dropout、处于训练模式时调用 `generate`。
  最好在返回之前把模型恢复到原来的模式，这样在训练过程中穿插生成时 dropout 仍然有效，不过这一点不计分。

  这部分要考查的正是这个循环，所以不能把它交给库函数来完成：不要调用 `MiniGPT.generate`，也不要调用
  `dnnlpy.models.sampling` 里的任何辅助函数（`greedy`、`sample_top_k`、`sample_top_p`、`sample_next_token`）。如果
  `generate` 调用了其中任何一个，评分项“贪心生成”记 0 分。循环里只需要保留最后 `block_size` 个 token、调用模型、
  `torch.argmax` 和拼接（`torch.cat`）。
""",
    "try_it": r"""
## 10. 动手试试

用第 3 节的 tokenizer 把各部分串起来。模型没有训练过，所以续写出来的是乱码（常常是同一个 token 反复出现），
但生成流程与训练好的 GPT 完全一样：id → 向量 → GPT block → 最后一个位置的 logits → argmax → 接到末尾。
""",
    "try_it_after": r"""
上面的文本里如果出现 `�`，并不说明哪里出了错。这个 tokenizer 是字节级的：一个 token 可能只包含某个字符的
一部分字节（UTF-8 用多个字节表示一个汉字），而未经训练的模型只是把 token 随意拼在一起，于是有些字节序列不是
合法的 UTF-8。解码时，每一段这样的字节都会被替换成 `�`（U+FFFD，替换字符）。训练好的模型生成的字节通常会拼成
完整的字符。

## 小结

- token embedding 通过查表把 `(B, T)` 的 id 映射成 `(B, T, D)` 的向量；LM head 把 `(B, T, D)` 的 hidden state
  映射成 `(B, T, V)` 的 logits；`V` 就是 tokenizer 的词表大小。
- weight tying 让 LM head 的权重与 token embedding 表成为**同一个参数对象**：两端的参数从 `2VD` 个变成 `VD` 个，
  一个 `.grad` 汇总两端的贡献，每一步只更新一次。
- 位置表有自己的形状 `(block_size, D)`，从不参与共享。
- loss 的输入是 logits；贪心生成每一步取最后一个位置 logits 的 argmax。

**提交之前**：按开头“怎么做题”所说，重启内核并运行所有单元格，保存，然后在本文件夹运行 `pytest`。
""",
    "grade_cells": r"""
## 成绩记录（按评分项）

下面这几个单元格不是练习，请保持原样。课程的成绩簿在这里记录评分程序给每个评分项打的分，
合计 {{total}} 分。练习检查单元格在成绩簿里都记 0 分，所以成绩簿里的总分就是评分程序给出的分数。
""",
    "graded_area": r"""
**评分项“{{area_name}}”**：{{points}} 分（{{area_split}}），由隐藏测试评分；评分程序把这一项的得分记在这个单元格里。
""",
}

# 发布文件夹里的 README.md（{{folder}}、{{other}}、{{wheel}}、{{torch}} 由构建脚本填入）：
# the release folder's README.md, the English edition's README in this edition's words.
README = """
# Weight Tying 作业说明

这个文件夹就是作业，可以从 Jupyter 的 `Assignments` 标签页取得，也可以运行 `nbgrader fetch_assignment {{folder}}`
取得，或由老师直接发给你。你要填写的 notebook 是 `weight_tying.ipynb`。
在这个文件夹里运行 `pytest` 就能自检，自检用到的文件在 `weight_tying_checks/` 中。
老师还会给你课程库，即文件 `{{wheel}}`。
你需要 Python 3.11 或更新的版本。
同一份作业也有英文版 `{{other}}/`：两份中选一份做。

## 1. 安装（只需一次）

在一个新的、不属于其他项目的文件夹里，先建虚拟环境，再装 PyTorch（只需 CPU 版，课程不用 GPU），最后装课程库。
一定先装 `torch`：否则安装课程库时，`pip` 会自己挑一个 `torch` 装上，可能是几 GB 的 GPU 版（见下面的注释）。

```bash
python3 -m venv .venv
source .venv/bin/activate            # Windows：.venv\\Scripts\\activate
# Linux：从 PyTorch 官方的软件包索引（index）装 CPU 版（直接 pip install torch 会下载几 GB 的 GPU 版）
pip install "{{torch}}" --index-url https://download.pytorch.org/whl/cpu
# macOS 和 Windows：PyPI 上的就是 CPU 版
pip install "{{torch}}"
pip install {{wheel}}   # 课程库，连同它需要的 numpy、pytest、matplotlib 等
pip install jupyterlab                 # 如果还没装 Jupyter
```

## 2. 做作业，然后自检

```bash
cd {{folder}}
jupyter lab weight_tying.ipynb       # 补全两个类，然后保存
pytest                               # 检查磁盘上保存的 weight_tying.ipynb
```

每个没通过的检查，`pytest` 都会指出是哪种常见错误、该重读 notebook 的哪一节；还没实现的类或方法，它会指出
题目要求写在哪一节。自检运行的单元格与评分程序相同（都跳过以 `# 练习检查` 开头的单元格以及未改动的演示单元格），
只是不计分。成绩由覆盖更全面的隐藏测试决定（见 notebook 开头的表格）。`WEIGHT_TYING_LANG=en pytest` 用英文给出提示；
`WEIGHT_TYING_SUBMISSION=copy.ipynb pytest` 检查另一个文件。

## 3. 提交

1. 执行“Kernel → Restart Kernel and Run All Cells…”（中文界面为“内核 → 重启内核并运行所有单元格…”），确认
   notebook 能从头到尾运行：评分程序只会在一个新进程里从头运行一遍 notebook。然后保存，再运行一次 `pytest`。
2. 按课程的方式提交这个文件夹：在 Jupyter 的 `Assignments` 标签页中点 `Submit`，或在上一级文件夹中运行
   `nbgrader submit {{folder}}`。不要改 notebook 的文件名 `weight_tying.ipynb`：改了名的副本或另一个
   notebook 都不会被评分。
3. 中文版和英文版只提交其中一个。两个都提交的话，只评后提交的那一个。

反馈页也从同样的地方取回（`Assignments` 标签页，或 `nbgrader fetch_feedback {{folder}}`）：每个常见错误
都会写明扣了多少分、涉及哪些测试。
"""
