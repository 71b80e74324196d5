"""Lint beyond the schema: items that give the answer away are findings, with exit code 1."""
from __future__ import annotations

import json

import yaml
from click.testing import CliRunner

from generator.cli import main

FACT = {"id": "f", "claim": {"en": "c", "zh": "c"}, "check": {"exists": "torch"}}


def truefalse(index: int, true: bool) -> dict:
    options = [{"text": {"en": "True", "zh": "对"}, "correct": true, "why": {"en": "w", "zh": "w"}},
               {"text": {"en": "False", "zh": "错"}, "correct": not true, "why": {"en": "w", "zh": "w"}}]
    return {"id": f"tf-{index}", "kind": "truefalse", "stem": {"en": f"s {index}", "zh": f"题 {index}"},
            "options": options, "facts": ["f"]}


def single(index: int, correct_longest: bool) -> dict:
    texts = ["a much longer correct option", "short", "tiny"] if correct_longest else ["right", "a long wrong one", "x"]
    options = [{"text": {"en": t, "zh": t}, "correct": i == 0, "why": {"en": "w", "zh": "w"}} for i, t in enumerate(texts)]
    return {"id": f"s-{index}", "kind": "single", "stem": {"en": f"q {index}", "zh": f"问 {index}"},
            "options": options, "facts": ["f"]}


def lint_of(tmp_path, questions: list[dict] = (), cards: list[dict] = (), facts: list[dict] = (FACT,),
            lessons: list[dict] = ()):
    module = {"module": "torch.backends.t", "title": {"en": "T", "zh": "T"}, "summary": {"en": "S", "zh": "S"},
              "facts": list(facts), "cards": list(cards), "questions": list(questions), "lessons": list(lessons)}
    module = json.loads(json.dumps(module))  # shared dicts would be written as YAML aliases, which content refuses
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(module, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return CliRunner().invoke(main, ["lint", "--content", str(tmp_path)])


def card(card_id: str, kind: str = "basic", **fields) -> dict:
    if kind == "cloze":
        return {"id": card_id, "kind": kind, "facts": ["f"], **fields}
    return {"id": card_id, "kind": kind, "front": {"en": f"What is {card_id}?", "zh": f"{card_id} 是什么？"},
            "back": {"en": "An answer.", "zh": "一个答案。"}, "facts": ["f"], **fields}


def line_of(tmp_path, text: str) -> int:
    """The 1-based line of t.yaml that holds ``text``."""
    lines = (tmp_path / "t.yaml").read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def test_balanced_items_are_clean(tmp_path):
    questions = [truefalse(i, i % 2 == 0) for i in range(10)] + [single(i, i < 3) for i in range(10)]
    result = lint_of(tmp_path, questions)
    assert result.exit_code == 0, result.output


def test_true_false_keys_must_be_balanced(tmp_path):
    result = lint_of(tmp_path, [truefalse(i, i < 2) for i in range(10)])
    assert result.exit_code == 1 and "2 of 10 are keyed True (20%)" in result.output


def test_the_correct_option_is_not_the_longest_by_habit(tmp_path):
    result = lint_of(tmp_path, [single(i, i < 5) for i in range(10)])
    assert result.exit_code == 1 and "strictly the longest in 5 of 10 (50%; at most 35%)" in result.output
    assert "s-0" in result.output and "s-5" not in result.output


def test_a_hand_written_select_all_hint_is_a_finding(tmp_path):
    question = single(0, False)
    question["stem"] = {"en": "Which are right? (pick all)", "zh": "哪些正确？（多选）"}
    result = lint_of(tmp_path, [question])
    assert result.exit_code == 1 and "s-0: a hand-written 'select all that apply' hint" in result.output


# Cards by the minimum-information principle


def finds(tmp_path, bad: dict, good: dict, message: str) -> None:
    """Lint finds ``message`` about ``bad``, at its line, and nothing about ``good``."""
    result = lint_of(tmp_path, cards=[bad, good])
    assert result.exit_code == 1
    assert f"t.yaml:{line_of(tmp_path, 'id: ' + bad['id'])}: {bad['id']}.{message}" in result.output
    assert good["id"] not in result.output


def test_an_answer_that_lists_four_items_is_a_set_to_recite(tmp_path):
    listing = card("t-list", back={"en": "enabled, benchmark, deterministic and allow_tf32.", "zh": "四个。"})
    three = card("t-three", back={"en": "`auto`, `greedy` or `optimal` (the default is auto).", "zh": "三个。"})
    finds(tmp_path, listing, three, "back: the answer lists 4 items (at most 3)")


def test_prose_with_commas_is_not_a_list(tmp_path):
    prose = card("t-prose", back={"en": "No: it is gone, so the call raises AttributeError, and old tutorials "
                                        "that use it fail. ℹ Use `torch.use_deterministic_algorithms(True)`.",
                                  "zh": "不行。"})
    result = lint_of(tmp_path, cards=[prose])
    assert result.exit_code == 0, result.output


def test_a_cloze_with_three_deletions_is_a_finding(tmp_path):
    three = card("t-three", "cloze", text={"en": "{{c1::a}}, {{c2::b}} and {{c3::c}}.",
                                           "zh": "{{c1::a}}、{{c2::b}}、{{c3::c}}。"})
    two = card("t-two", "cloze", text={"en": "{{c1::a}} and {{c2::b}}, {{c1::a}} again.",
                                       "zh": "{{c1::a}}、{{c2::b}}。"})
    finds(tmp_path, three, two, "text: 3 cloze deletions make 3 cards over one list (at most 2)")


def test_a_reversed_card_that_asks_only_a_value_is_a_finding(tmp_path):
    bare = card("t-bare", "reverse", back="16")
    named = card("t-named", "reverse", back={"en": "the flag that caches the fastest algorithm per shape",
                                             "zh": "按形状缓存最快算法的开关"})
    finds(tmp_path, bare, named, "back: the reversed card asks only '16'")


def test_two_cards_that_ask_the_same_thing_are_a_finding(tmp_path):
    first = card("t-first", front={"en": "What does `torch.backends.mkl.is_available()` tell you?", "zh": "问"})
    again = card("t-again", front={"en": "What does `torch.backends.mkl.is_available()` really tell you?", "zh": "问"})
    other = card("t-other", front={"en": "What does `torch.backends.openmp.is_available()` tell you?", "zh": "问"})
    code = {"kind": "code", "code": "import torch\nprint(torch.backends.cudnn.deterministic)\n", "facts": ["f"]}
    shown = {"id": "t-code", "front": {"en": "What does this print?", "zh": "打印什么？"},
             "back": {"en": "`False`.", "zh": "`False`。"}, **code}
    shown_again = {**shown, "id": "t-code-again",
                   "front": {"en": "What does the last line print?", "zh": "打印什么？"}}
    result = lint_of(tmp_path, cards=[first, again, other, shown, shown_again])
    assert result.exit_code == 1
    assert f"t.yaml:{line_of(tmp_path, 'id: t-again')}: t-again: asks what t-first" in result.output
    assert "t-code-again: asks what t-code" in result.output
    assert "t-other" not in result.output and result.output.count("asks what") == 2


def test_a_prompt_that_asks_two_questions_is_a_finding(tmp_path):
    two = card("t-two", front={"en": "What does `set_flags()` return, and how do you undo it?",
                               "zh": "`set_flags()` 返回什么？如何撤销？"})
    one = card("t-one", front={"en": "Myth check: 'on CPU? set cudnn.enabled = False.' On a CPU-only build, does it "
                                     "change anything?", "zh": "误区检查：“在 CPU 上？设为 False。”有任何作用吗？"})
    finds(tmp_path, two, one, "front: asks two questions in one")


def test_a_prompt_that_asks_for_several_names_values_is_a_finding(tmp_path):
    def front(card_id: str, en: str) -> dict:
        return card(card_id, front={"en": en, "zh": "它们是什么？"})
    both = front("t-both", "On the CPU wheel, what do `pn.all_dsls` and `pn.available_dsls` return?")
    defaults = front("t-defaults", "Default of `flash_sdp_enabled()`, `math_sdp_enabled()` and `cudnn_sdp_enabled()`?")
    listed = front("t-listed", "On a CPU build: `is_available()`, `version()` of `torch.backends.cusparselt`?")
    one = front("t-one", "What does `torch.backends.cusparselt.version()` return on a CPU build?")
    shared = front("t-shared", "What type do `enabled`, `benchmark` and `deterministic` read back as?")
    either = front("t-either", "What happens when you call `get_name()` or `get_core_count()` without MPS?")
    result = lint_of(tmp_path, cards=[both, defaults, listed, one, shared, either])
    assert result.exit_code == 1
    for bad in ("t-both", "t-defaults", "t-listed"):
        assert (f"t.yaml:{line_of(tmp_path, 'id: ' + bad)}: {bad}.front: asks for several names' values at once"
                in result.output)
    assert not any(good in result.output for good in ("t-one", "t-shared", "t-either"))


def test_an_answer_that_states_three_things_is_a_finding(tmp_path):
    three = card("t-three", back={"en": "No. It only constrains cuDNN; other ops are separate. Use the global switch.",
                                  "zh": "不。它只约束 cuDNN。"})
    two = card("t-two", back={"en": "No. Before: it constrains cuDNN only (every algorithm). After: every op. ℹ Use the "
                                    "global switch. It covers every op.", "zh": "不。之前：只约束 cuDNN。之后：所有算子。"})
    finds(tmp_path, three, two, "back: the answer states 3 things (at most 2 before ℹ)")


def test_a_select_all_over_five_options_is_a_finding(tmp_path):
    def mcq(card_id: str, correct: list[bool]) -> dict:
        options = [{"text": {"en": f"option {i}", "zh": f"选项 {i}"}, "correct": right, "why": {"en": "w", "zh": "w"}}
                   for i, right in enumerate(correct)]
        return {"id": card_id, "kind": "mcq", "question": {"en": f"Which of {card_id}?", "zh": "哪些？"},
                "options": options, "facts": ["f"]}
    wide = mcq("t-wide", [True, True, False, False, False])
    single_of_five = mcq("t-single", [True, False, False, False, False])
    four = mcq("t-four", [True, True, False, False])
    result = lint_of(tmp_path, cards=[wide, single_of_five, four])
    assert result.exit_code == 1
    assert f"t.yaml:{line_of(tmp_path, 'id: t-wide')}: t-wide.options: a select-all over 5 options (at most 4)" \
        in result.output
    assert "t-single" not in result.output and "t-four" not in result.output


def test_a_cloze_that_shows_or_computes_its_deletion_is_a_finding(tmp_path):
    shown = card("t-shown", "cloze", text={"en": "2:4 sparsity keeps at most {{c1::2}} non-zeros in every 4 values.",
                                           "zh": "每 4 个值中最多保留 {{c1::2}} 个非零。"})
    summed = card("t-summed", "cloze", text={"en": "There are {{c1::17}} submodules: 15 load with torch, 2 do not.",
                                             "zh": "共有 {{c1::17}} 个子模块。"})
    hidden = card("t-hidden", "cloze", text={"en": "There are {{c1::17}} submodules in torch 2.13 to 2.15; 15 load.",
                                             "zh": "torch 2.13 到 2.15 有 {{c1::17}} 个子模块。"})
    words = card("t-words", "cloze", text={"en": "With torch: {{c1::pip install torch[opt-einsum]}}. ℹ Alone: pip install "
                                                 "opt-einsum.", "zh": "随 torch 安装：{{c1::pip install torch[opt-einsum]}}。"})
    dotted = card("t-dotted", "cloze", text={"en": "`miopen.immediate = True` uses the {{c1::Immediate}} API.",
                                             "zh": "`miopen.immediate = True` 改用 {{c1::Immediate}} API。"})
    decimal = card("t-decimal", "cloze", text={"en": "cuSPARSELt {{c1::0}} reads as 0.8.1 here.",
                                               "zh": "cuSPARSELt {{c1::0}} 在这里读作 0.8.1。"})
    result = lint_of(tmp_path, cards=[shown, summed, hidden, words, dotted, decimal])
    assert result.exit_code == 1
    assert f"t.yaml:{line_of(tmp_path, 'id: t-dotted')}: t-dotted.text: the en cloze gives away 'Immediate'" \
        in result.output
    assert "t-dotted.text: the zh cloze gives away 'Immediate'" in result.output and "t-decimal" not in result.output
    assert "t-words.text: the en cloze gives away 'pip install torch[opt-einsum]'" in result.output
    assert "t-words.text: the zh" not in result.output
    assert f"t.yaml:{line_of(tmp_path, 'id: t-shown')}: t-shown.text: the en cloze gives away '2'" in result.output
    assert f"t.yaml:{line_of(tmp_path, 'id: t-summed')}: t-summed.text: the en cloze gives away '17'" in result.output
    assert "t-summed.text: the zh" not in result.output and "t-hidden" not in result.output


def test_a_reversed_card_whose_prompt_names_its_answer_is_a_finding(tmp_path):
    named = card("t-named", "reverse", front={"en": "`torch.backends.nnpack.is_available()`", "zh": "`x`"},
                 back={"en": "whether this build includes NNPACK", "zh": "这个构建是否包含 NNPACK"})
    fair = card("t-fair", "reverse", front={"en": "`torch.backends.mkldnn.is_acl_available()`", "zh": "`x`"},
                back={"en": "bool: was oneDNN built together with Arm's compute library?", "zh": "oneDNN 是否与 Arm 的计算库一起构建？"})
    finds(tmp_path, named, fair, "back: the prompt says 'nnpack', part of the name it asks for")


def test_a_diagram_goes_only_on_a_card_its_lessons_draw_it_for(tmp_path):
    words = {"en": "w", "zh": "字"}
    lesson = {"id": "t-lesson", "title": words, "notes": words, "ask": words, "diagrams": ["cudnn-flags"],
              "facts": ["f"]}
    about = card("t-about", diagram="cudnn-flags")
    elsewhere = card("t-elsewhere", diagram="sdpa-backends")
    result = lint_of(tmp_path, cards=[about, elsewhere], lessons=[lesson])
    assert result.exit_code == 1
    assert (f"t.yaml:{line_of(tmp_path, 'id: t-elsewhere')}: t-elsewhere.diagram: no lesson teaching the card's "
            "facts carries 'sdpa-backends'") in result.output
    assert "t-about" not in result.output


def test_an_unknown_diagram_on_a_card_is_an_input_error(tmp_path):
    result = lint_of(tmp_path, cards=[card("t-odd", diagram="no-such-diagram")])
    assert result.exit_code == 2
    assert f"t.yaml:{line_of(tmp_path, 'diagram: no-such-diagram')}" in result.output
    assert "unknown diagram 'no-such-diagram'" in result.output


# The Chinese glossary


def test_a_discouraged_chinese_term_is_a_finding_on_its_line(tmp_path):
    myth = card("t-myth", front={"en": "Myth check: is it on?", "zh": "谣言检验：它开着吗？"})
    kernel = card("t-kernel", back={"en": "The kernel runs.", "zh": "这个 kernel 会运行。"})
    fact = {**FACT, "id": "f2", "claim": {"en": "matmul precision", "zh": "CUDA matmul 精度"}}
    result = lint_of(tmp_path, cards=[myth, kernel], facts=[FACT, fact])
    assert result.exit_code == 1
    assert (f"t.yaml:{line_of(tmp_path, '谣言检验')}: t-myth.front: '谣言' in Chinese text: the glossary says 误区"
            in result.output)
    assert f"t.yaml:{line_of(tmp_path, '这个 kernel')}: t-kernel.back: 'kernel' in Chinese text" in result.output
    assert f"t.yaml:{line_of(tmp_path, 'CUDA matmul')}: f2.claim: 'matmul' in Chinese text" in result.output


def test_quotation_marks_in_chinese_text(tmp_path):
    corner = card("t-corner", back={"en": "It says 'built'.", "zh": "它说的是「编译时带了」。"})
    ascii_quoted = card("t-ascii", back={"en": "It says 'auto'.", "zh": '两者都是 -1，表示"自动决定"。'})
    literal = card("t-literal", back={"en": "'none' then 'ieee'.", "zh": '先是 "none"，然后是 "ieee"：继承。'})
    result = lint_of(tmp_path, cards=[corner, ascii_quoted, literal])
    assert result.exit_code == 1
    assert "t-corner.back: '「编译时带了」' in Chinese text: the glossary says “…”" in result.output
    assert "t-ascii.back: '\"自动决定\"' in Chinese text" in result.output
    assert "t-literal" not in result.output


def test_names_and_code_are_not_glossary_terms(tmp_path):
    names = card("t-names", back={"en": "Names.", "zh": "`matmul` 对象、cuda.matmul、depthwise_kernel 和 'matmul' 都是名字；"
                                                        "矩阵乘用 TF32 内核，张量核心也是误区里的词。"})
    result = lint_of(tmp_path, cards=[names])
    assert result.exit_code == 0, result.output


def test_authoring_notes_are_findings_and_torchs_own_seed_is_not(tmp_path):
    noted = single(0, False)
    noted["options"][1]["why"] = {"en": "A seed chat marked this correct.", "zh": "错。"}
    seeded = single(1, False)
    seeded["stem"] = {"en": "What does torch.seed() return?", "zh": "torch.seed() 返回什么？设置随机种子吗？"}
    checked = truefalse(2, True)
    checked["options"][0]["why"] = {"en": "Right.", "zh": "对：见种子对话。"}
    result = lint_of(tmp_path, [noted, seeded, checked])
    assert result.exit_code == 1
    assert "s-0.options[1].why: 'seed chat' is an authoring note" in result.output.replace("\n", " ")
    assert "tf-2.options[0].why: '种子对话' is an authoring note" in result.output.replace("\n", " ")
    assert "s-1" not in result.output


# Chinese punctuation


def test_ascii_punctuation_beside_chinese_is_a_finding_on_its_line(tmp_path):
    comma = card("t-comma", back={"en": "CUDA builds, ROCm builds.", "zh": "需要 CUDA 构建版, ROCm 构建版。"})
    paren = card("t-paren", front={"en": "What does it do (by default)?", "zh": "它做什么 (默认情况下)？"})
    result = lint_of(tmp_path, cards=[comma, paren])
    assert result.exit_code == 1
    assert (f"t.yaml:{line_of(tmp_path, '构建版, ROCm')}: t-comma.back: '版,' in Chinese text: ASCII ',' beside "
            "Chinese, write '，' (or '、' between listed items)") in result.output.replace("\n", " ")
    assert f"t.yaml:{line_of(tmp_path, '它做什么 (')}: t-paren.front: '么 (' in Chinese text" in result.output
    assert "t-paren.front: '下)' in Chinese text: ASCII ')' beside Chinese, write '）'" in result.output
    assert result.output.count("ASCII") == 3  # one finding a mark


def test_code_values_and_latin_lists_keep_their_ascii_punctuation(tmp_path):
    code = card("t-code", back={"en": "Code.", "zh": "写 `flags(enabled=False, deterministic=True)`，然后 `x: int`。"})
    call = card("t-call", back={"en": "Calls.", "zh": "调用 is_available() 之后，赋元组 (False, True) 会关掉它。"})
    latin = card("t-latin", back={"en": "Latin.", "zh": "支持 CUDA, ROCm 和 MPS。"})
    cloze = card("t-cloze", "cloze", text={"en": "It stays {{c1::frozen}}.", "zh": "它在{{c1::整个进程}}内保持冻结。"})
    result = lint_of(tmp_path, cards=[code, call, latin, cloze])
    assert result.exit_code == 0, result.output


# Issue 23's fresh look: each give-away and minimum-information example it found, and its rewrite


def test_a_cloze_whose_listed_names_count_its_deletion_is_a_finding(tmp_path):
    counted = card("t-counted", "cloze", text={
        "en": "`torch.backends.mkl` has {{c1::two}} verbose levels, `VERBOSE_OFF` and `VERBOSE_ON`.",
        "zh": "`torch.backends.mkl` 有{{c1::两}}个 verbose 级别：`VERBOSE_OFF` 和 `VERBOSE_ON`。"})
    asked = card("t-asked", "cloze", text={
        "en": "Unlike mkldnn, `torch.backends.mkl` has no {{c1::`VERBOSE_ON_CREATION`}} level.",
        "zh": "与 mkldnn 不同，`torch.backends.mkl` 没有 {{c1::`VERBOSE_ON_CREATION`}} 级别。"})
    worded = card("t-worded", "cloze", text={
        "en": "torch.einsum consults opt_einsum only with at least {{c1::three}} operands. ℹ With two there is only one "
              "order.", "zh": "操作数至少 {{c1::三}} 个时，torch.einsum 才询问 opt_einsum。"})
    result = lint_of(tmp_path, cards=[counted, asked, worded])
    assert result.exit_code == 1
    assert "t-counted.text: the en cloze gives away 'two'" in result.output
    assert "t-counted.text: the zh cloze gives away '两'" in result.output and "t-asked" not in result.output
    assert "t-worded.text: the en cloze gives away 'three'" in result.output


def test_a_cloze_whose_range_the_other_range_implies_is_a_finding(tmp_path):
    ranged = card("t-ranged", "cloze", text={
        "en": "The default x86 qconfig observes activations in 0..{{c1::127}} (`reduce_range=True`), while qnnpack "
              "uses 0..{{c2::255}}.", "zh": "默认的 x86 qconfig 在 0..{{c1::127}} 范围内观察激活，而 qnnpack 用 0..{{c2::255}}。"})
    alone = card("t-alone", "cloze", text={"en": "The default x86 qconfig observes quint8 activations in 0..{{c1::127}}.",
                                           "zh": "默认的 x86 qconfig 在 0..{{c1::127}} 范围内观察 quint8 激活。"})
    result = lint_of(tmp_path, cards=[ranged, alone])
    assert result.exit_code == 1
    assert "t-ranged.text: the en cloze gives away '127'" in result.output
    assert "t-ranged.text: the zh cloze gives away '127'" in result.output and "t-alone" not in result.output


def test_a_cloze_deletion_shown_inside_a_name_is_a_finding(tmp_path):
    piece = card("t-piece", "cloze", text={
        "en": "`cuFFTPlanCache.{{c1::size}}` is read-only; set `cuFFTPlanCache.{{c2::max_size}}` to change the capacity.",
        "zh": "`cuFFTPlanCache.{{c1::size}}` 是只读的；要改变容量请设置 `cuFFTPlanCache.{{c2::max_size}}`。"})
    whole = card("t-whole", "cloze", text={
        "en": "`cuFFTPlanCache.size` is read-only; set `cuFFTPlanCache.{{c1::max_size}}` to change the capacity.",
        "zh": "`cuFFTPlanCache.size` 是只读的；要改变容量请设置 `cuFFTPlanCache.{{c1::max_size}}`。"})
    result = lint_of(tmp_path, cards=[piece])
    assert result.exit_code == 1 and "t-piece.text: the zh cloze gives away 'size'" in result.output
    assert lint_of(tmp_path, cards=[whole]).exit_code == 0  # alone: side by side both hide max_size


def test_a_cloze_whose_two_deletions_give_each_other_away_is_a_finding(tmp_path):
    cause = card("t-cause", "cloze", text={
        "en": "`torch.backends.mps.is_available()` is wrapped in {{c1::functools.lru_cache}}, so it is computed "
              "{{c2::once per process}}.",
        "zh": "`torch.backends.mps.is_available()` 外面包了一层 {{c1::functools.lru_cache}}，所以{{c2::每个进程只计算一次}}。"})
    once = card("t-once", "cloze", text={
        "en": "`torch.backends.mps.is_available()` is computed {{c1::once per process}}. ℹ It is wrapped in "
              "functools.lru_cache, so installing a driver later changes nothing.",
        "zh": "`torch.backends.mps.is_available()` {{c1::每个进程只计算一次}}。ℹ 它外面包了一层 functools.lru_cache。"})
    finds(tmp_path, cause, once, "text: the zh cloze gives away '每个进程只计算一次'")


def test_clauses_joined_by_a_comma_and_and_count_apart(tmp_path):
    three = card("t-three", back={"en": "Adds all launcher options to an argparse parser you pass in; it launches "
                                        "nothing, and without a parser it fails with AttributeError.", "zh": "加选项。"})
    two = card("t-two", back={"en": "Adds all launcher options to an argparse parser you pass in; it launches nothing.",
                              "zh": "加选项。"})
    listed = card("t-listed", back={"en": "It freezes the flags of cuDNN, oneDNN and MIOpen, and the generic one.",
                                    "zh": "冻结。"})
    result = lint_of(tmp_path, cards=[three, two, listed])
    assert result.exit_code == 1 and "t-three.back: the answer states 3 things (at most 2 before ℹ)" in result.output
    assert "t-two" not in result.output and "t-listed" not in result.output


def test_a_reversed_card_whose_question_says_a_word_of_its_answer_is_a_finding(tmp_path):
    lazy = card("t-lazy", "reverse", front={"en": "The two torch.backends submodules that `import torch` does not load",
                                            "zh": "不随 `import torch` 加载的两个子模块"},
                back={"en": "`xeon` and `xnnpack` (import them by name)", "zh": "`xeon` 和 `xnnpack`（要按名字单独导入）"})
    fair = card("t-fair", "reverse", front={"en": "`torch.backends.quantized.supported_engines = [...]`", "zh": "`x`"},
                back={"en": "Raises `RuntimeError`: the list is read-only and stays as it was.", "zh": "抛出 `RuntimeError`。"})
    finds(tmp_path, lazy, fair, "back: the reversed card's question says 'import', a word of its answer")


def test_a_reversed_card_naming_its_answer_in_other_words_is_a_finding(tmp_path):
    joined = card("t-joined", "reverse", front={"en": "`torch.backends.mkldnn.is_available()`", "zh": "`x`"},
                  back={"en": "bool: was PyTorch built with MKL-DNN (oneDNN) support?", "zh": "是否带 MKL-DNN？"})
    stem = card("t-stem", "reverse", front={"en": "`with torch.backends.python_native.cutedsl.disabled():`", "zh": "`x`"},
                back={"en": "Disables CuTe DSL for the block, then restores the previous state.", "zh": "在块内禁用。"})
    fair = card("t-fair", "reverse", front={"en": "`torch.backends.mkldnn.is_available()`", "zh": "`x`"},
                back={"en": "bool: was PyTorch built with oneDNN support?", "zh": "是否带 oneDNN？"})
    result = lint_of(tmp_path, cards=[joined, stem])
    assert result.exit_code == 1
    assert "t-joined.back: the prompt says 'mkldnn', part of the name it asks for" in result.output
    assert "t-stem.back: the prompt says 'cutedsl', part of the name it asks for" in result.output
    assert lint_of(tmp_path, cards=[fair]).exit_code == 0


def test_a_code_card_and_a_basic_card_with_the_same_answer_ask_the_same_thing(tmp_path):
    basic = card("t-basic", front={"en": "`torch.backends.kleidiai.is_available()` on an x86 build?", "zh": "返回什么？"},
                 back={"en": "`False`, on every x86 build.", "zh": "`False`。"})
    shown = {"id": "t-shown", "kind": "code", "front": {"en": "What does this print on an x86 CPU wheel?", "zh": "打印什么？"},
             "code": "import torch\nprint(torch.backends.kleidiai.is_available())\n",
             "back": {"en": "`False`: it only reports whether the build includes KleidiAI.", "zh": "`False`。"},
             "facts": ["f"]}
    other = card("t-other", front={"en": "Do you need to import it before `torch.backends.kleidiai.is_available()`?",
                                   "zh": "需要吗？"}, back={"en": "No: `import torch` already imports it.", "zh": "不需要。"})
    result = lint_of(tmp_path, cards=[basic, shown, other])
    assert result.exit_code == 1
    assert f"t.yaml:{line_of(tmp_path, 'id: t-shown')}: t-shown: asks what t-basic" in result.output
    assert "t-other" not in result.output


def test_a_prompt_that_names_nothing_it_asks_about_is_a_finding(tmp_path):
    def mcq(card_id: str, question: str) -> dict:
        options = [{"text": {"en": t, "zh": t}, "correct": i == 0, "why": {"en": "w", "zh": "w"}}
                   for i, t in enumerate(["is_built() False, is_available() True", "both True", "both False"])]
        return {"id": card_id, "kind": "mcq", "question": {"en": question, "zh": "哪种组合？"}, "options": options,
                "facts": ["f"]}
    vague = mcq("t-vague", "Which combination can never happen?")
    named = mcq("t-named", "Which combination of `torch.backends.cuda.is_built()` and `torch.cuda.is_available()` "
                           "can never happen?")
    finds(tmp_path, vague, named, "question: names nothing it asks about")


def test_a_stem_that_says_its_correct_option_is_a_finding(tmp_path):
    def backend(question_id: str, stem: str, zh: str = "并行后端是什么？") -> dict:
        options = [{"text": {"en": t, "zh": t}, "correct": i == 0, "why": {"en": "w", "zh": "w"}}
                   for i, t in enumerate(["OpenMP", "MKL", "oneDNN"])]
        return {"id": question_id, "kind": "single", "stem": {"en": stem, "zh": zh}, "options": options,
                "facts": ["f"]}
    said = backend("q-said", "On a build with OpenMP, what does `torch.__config__.parallel_info()` name as the ATen "
                             "parallel backend?")
    fair = backend("q-fair", "On the default Linux x86 wheel, what does `torch.__config__.parallel_info()` name as the "
                             "ATen parallel backend?")
    quoted = backend("q-quoted", "Which backend does the line `ATen parallel backend: OpenMP` name?")
    result = lint_of(tmp_path, questions=[said])
    assert result.exit_code == 1
    assert f"t.yaml:{line_of(tmp_path, 'id: q-said')}: q-said.stem: says 'OpenMP', the correct option" in result.output
    for good in (fair, quoted):  # one at a time: side by side they ask the same thing
        assert lint_of(tmp_path, questions=[good]).exit_code == 0
    said_zh = backend("q-said-zh", "On the official wheels, what does `parallel_info()` name as the backend?",
                      zh="在带OpenMP的构建上，`parallel_info()` 给出的并行后端是什么？")
    result = lint_of(tmp_path, questions=[said_zh])
    assert result.exit_code == 1 and "q-said-zh.stem: says 'OpenMP', the correct option" in result.output


def test_two_clozes_hiding_the_same_name_ask_the_same_thing(tmp_path):
    generic = card("t-generic", "cloze", text={
        "en": "Backend flags are {{c1::ContextProp}} descriptors: reading one calls its getter, assigning its setter.",
        "zh": "后端开关是 {{c1::ContextProp}} 描述符。"})
    cudnn = card("t-cudnn", "cloze", text={
        "en": "A cudnn flag such as `enabled` is a {{c1::ContextProp}} descriptor: reading it calls a C++ getter.",
        "zh": "像 `enabled` 这样的 cudnn 开关是 {{c1::ContextProp}} 描述符。"})
    value = card("t-value", "cloze", text={"en": "`torch.backends.nnpack.flags()` defaults to enabled={{c1::False}}.",
                                           "zh": "enabled 默认为 {{c1::False}}。"})
    same_value = card("t-same-value", "cloze", text={"en": "`torch.backends.cudnn.flags()` defaults to enabled={{c1::False}}.",
                                                     "zh": "enabled 默认为 {{c1::False}}。"})
    result = lint_of(tmp_path, cards=[generic, cudnn, value, same_value])
    assert result.exit_code == 1
    assert f"t.yaml:{line_of(tmp_path, 'id: t-cudnn')}: t-cudnn: asks what t-generic" in result.output
    assert "t-value" not in result.output and "t-same-value" not in result.output


def test_a_workshop_table_or_listing_without_a_headline_of_its_own_is_a_finding(tmp_path):
    """In a workshop a table slide is headed by the table's headline or a takeaway short enough for a title,
    a code slide by its caption: where there is neither, the slide would repeat its lesson's title."""
    table = {"columns": [{"en": "Flag", "zh": "开关"}], "rows": [[{"en": "enabled", "zh": "enabled"}]]}
    long_takeaway = {"en": "A takeaway far too long to head a slide, " * 4, "zh": "一句长得没法当标题的要点，" * 6}

    def lesson(lesson_id: str, **fields) -> dict:
        return {"id": lesson_id, "title": {"en": f"Lesson {lesson_id}", "zh": f"课 {lesson_id}"},
                "points": [{"en": "A point.", "zh": "一个要点。"}], "notes": {"en": "n", "zh": "讲"},
                "ask": {"en": "a?", "zh": "问？"}, "facts": ["f"], **fields}

    lessons = [lesson("bare", table=table, takeaway=long_takeaway, code=[{"code": "import torch\n"}]),
               lesson("headed", table={**table, "headline": {"en": "What each flag does", "zh": "各开关的作用"}},
                      takeaway=long_takeaway, code=[{"code": "import torch\n", "caption": {"en": "Import", "zh": "导入"}}]),
               lesson("short", table=table, takeaway={"en": "enabled is on.", "zh": "enabled 默认开启。"})]
    workshop = {"workshops": [{"id": "w", "title": {"en": "W", "zh": "W"},
                               "agenda": [{"lesson": name} for name in ("bare", "headed", "short")]}]}
    (tmp_path / "workshops.yaml").write_text(yaml.safe_dump(workshop, allow_unicode=True), encoding="utf-8")
    result = lint_of(tmp_path, lessons=lessons)
    assert "bare.table.headline" in result.output and "bare.code[0].caption" in result.output, result.output
    assert "headed." not in result.output and "short." not in result.output, result.output
    assert result.exit_code == 1
