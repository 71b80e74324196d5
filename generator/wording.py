"""Every fixed phrase the outputs print, in each language the content has: one table.

``words(lang)`` gives one language's phrases: the common ones (what is verified where, the
several-answers hint, release ranges, code sample marks, a workshop's deck and handout under
``"workshop"``) at the top level, and the slides' and the quizzes' own under ``"slides"`` and ``"quiz"``.
"""
from __future__ import annotations

_SLIDES = {
    "en": {
        "course": "torch.backends, hands-on",
        "course_sub": "Modules: {modules} · lessons: {lessons} · quiz questions: {questions} · about {minutes} min",
        "module_sub": "Lessons: {lessons} · quiz questions: {questions} · about {minutes} min",
        "outline": "🧭 Learning outline",
        "map": "🗺️ The map of torch.backends",
        "cont": " (cont.)",
        "quiz": {"single": "🎯 Quiz: pick one", "multi": "🎯 Quiz: several answers",
                 "truefalse": "🎯 Quiz: true or false?", "scenario": "🎮 Scenario: you are the tuner"},
        "answer": "✅ Answer: {letters}",
        "review": "🔁 Review so far",
        "cheat": "📋 Cheat sheet",
        "flash": "🃏 Flashcard recap",
        "cheat_columns": ("Module", "Topic", "Remember"),
        "flash_columns": ("Question", "Answer"),
        "source": "Source: ",
        "why": "Why: ",
        "blank": "[…]",
        "say": "Say: ", "ask": "Ask the room: ", "time": "Time: ",
        "minutes": "{n} min",
        "minutes_part": "{n} min for the whole lesson (slide {k} of {total})",
        "notes": {
            "outline": ("Here is the route: {modules} modules, each with short lessons, a quiz after each topic "
                        "and a review every few lessons.",
                        "Which of these modules have you already touched in your own code?"),
            "map": ("Every flag we discuss lives in one of these modules; find the group that matches your hardware.",
                    "Which boxes matter for the machines you train on?"),
            "section": ("{summary}", "What do you expect {module} to control? Shout out one guess."),
            "lesson": ("Walk through the points: {takeaway}", "What is still unclear about {title}?"),
            "diagram": ("Walk the picture step by step; let the room predict each next box before you point at it.",
                        "Where on this picture does your own setup land?"),
            "quiz": ("Read the question aloud, give the room 30 seconds, then take a show of hands for each letter.",
                     "{stem}"),
            "answer": ("Reveal the answer, then go through the why of every option, the wrong ones first.",
                       "Who picked a wrong option? What made it tempting?"),
            "review": ("Read each takeaway and ask a volunteer to say it in their own words.",
                       "Which of these would you explain to a colleague first?"),
            "cheat": ("The one slide to photograph: a line per topic, in teaching order.",
                      "Which row surprised you most today?"),
            "flash": ("Read each question, pause, let the room answer, then read the answer.",
                      "Who can answer before I read it out?"),
        },
    },
    "zh": {
        "course": "torch.backends 实战工作坊",
        "course_sub": "{modules} 个模块 · {lessons} 节课 · {questions} 道测验题 · 约 {minutes} 分钟",
        "module_sub": "{lessons} 节课 · {questions} 道测验题 · 约 {minutes} 分钟",
        "outline": "🧭 学习大纲",
        "map": "🗺️ torch.backends 全景图",
        "cont": "（续）",
        "quiz": {"single": "🎯 选择题：选一个", "multi": "🎯 多选题",
                 "truefalse": "🎯 判断题：对还是错？", "scenario": "🎮 场景题：你是调优大师"},
        "answer": "✅ 答案：{letters}",
        "review": "🔁 阶段复习",
        "cheat": "📋 速查表",
        "flash": "🃏 闪卡复习",
        "cheat_columns": ("模块", "主题", "要点"),
        "flash_columns": ("问题", "答案"),
        "source": "出处：",
        "why": "理由：",
        "blank": "[…]",
        "say": "讲解：", "ask": "提问：", "time": "时长：",
        "minutes": "{n} 分钟",
        "minutes_part": "整节课 {n} 分钟（第 {k}/{total} 页）",
        "notes": {
            "outline": ("今天的路线：{modules} 个模块，每个主题后有小测验，每隔几节课复习一次。",
                        "这些模块里，哪些你已经在自己的代码里用过？"),
            "map": ("我们讨论的每个开关都属于图中的某个模块；先找到和你的硬件对应的那一组。",
                    "对你训练用的机器来说，哪些方框最重要？"),
            "section": ("{summary}", "你觉得 {module} 控制的是什么？大胆猜一个。"),
            "lesson": ("逐条讲解要点：{takeaway}", "关于“{title}”，还有哪里不清楚？"),
            "diagram": ("一步一步讲解这张图；指向下一个方框之前，先让大家猜一猜。",
                        "你自己的环境落在图中的哪个位置？"),
            "quiz": ("朗读题目，给大家 30 秒思考，然后按选项举手投票。", "{stem}"),
            "answer": ("公布答案，然后逐一讲解每个选项的理由，先讲错误选项。",
                       "谁选了错误选项？它为什么看起来很有道理？"),
            "review": ("逐条朗读要点，请一位同学用自己的话复述。", "这些要点里，你会最先讲给同事听哪一条？"),
            "cheat": ("最值得拍照留存的一页：每个主题一行，按讲授顺序排列。", "今天哪一行最让你意外？"),
            "flash": ("读出问题，停一下，让大家先回答，再读出答案。", "谁能在我读答案之前答出来？"),
        },
    },
}

_QUIZ = {
    "en": {
        "title": "torch.backends quiz",
        "version": "Version {}",
        "name": "Name", "class": "Class", "date": "Date", "score": "Score",
        "total": "{questions} · {points} in total",
        "questions": ("{} question", "{} questions"),
        "total_points": ("{} point", "{} points"),
        "instructions": ("Tick the box of the one correct answer, then fill its bubble on the answer sheet of this "
                         "version: the answer sheet is what is marked. Where a question says “select all that "
                         "apply”, tick every correct answer: each right box ticked earns its share of the points, "
                         "each wrong box ticked takes away its share, and no question scores below 0. Scenario "
                         "questions (✎) also ask you to explain your choice, in that question's box on the answer "
                         "sheet: hand in the answer sheet only."),
        "scoring": ("Several answers: each right option ticked earns points ÷ right options; each wrong option "
                    "ticked loses points ÷ wrong options; never below 0 (as Moodle scores it)."),
        "rubric": ("Rubric: full points for the right choice with a reason that names what decides it (the "
                   "facts below); half for the right choice without a sound reason; 0 otherwise."),
        "explain_on_sheet": "✎ Explain your choice on the answer sheet, in box {}.",
        "points": ("{} pt", "{} pts"),
        "key": "Answer key",
        "key_heading": "Answer key: {}",
        "grid": "Correct letters per version",
        "detail": "Every question: why each option is right or wrong, and the facts behind it",
        "where": "number on sheet: {}",
        "facts": "Rests on: ",
        "provenance": "Appendix: where each question comes from",
        "provenance_note": ("For the course's authors, not for marking: the ids of each question and of the facts "
                            "behind it, each fact's result on this machine, and where they were verified."),
        "provenance_columns": ("Number on sheet", "Question", "Facts (result here)"),
        "verified": "verified against torch {torch} ({passed} pass, {skipped} skip)",
        "answer_sheet": "Answer sheet",
        "answer_how": ("Fill the bubble of the answer you choose; where a question says “select all that apply”, "
                       "fill every correct one. Scenario questions (✎): fill the bubble, then explain your choice in the "
                       "question's box below."),
        "marking": "Marking grid",
        "marking_how": ("Lay this page beside a student's answer sheet of the same version: the filled bubbles "
                        "are the right answers, then the points. Several answers score as the key states; "
                        "✎ marks a scenario: mark the explanation in its box on the answer sheet with the key's rubric."),
        "on_paper": "✎",
        "explain_heading": "✎ Explain your choice: one box per scenario question",
    },
    "zh": {
        "title": "torch.backends 测验",
        "version": "{} 卷",
        "name": "姓名", "class": "班级", "date": "日期", "score": "得分",
        "total": "共 {questions}，总分 {points}",
        "questions": ("{} 题", "{} 题"),
        "total_points": ("{} 分", "{} 分"),
        "instructions": ("单选题请勾选唯一正确的选项，并在本卷答题卡上涂满对应的圆圈：按答题卡评分。标有“多选”的题目请勾选"
                         "所有正确选项：每勾对一项得相应份额的分数，每勾错一项扣相应份额，每题最低 0 分。情景题（✎）还需在答题卡上"
                         "该题的方框内写出理由：只交答题卡。"),
        "scoring": "多选题：每勾对一项得 分值÷正确项数；每勾错一项扣 分值÷错误项数；每题最低 0 分（与 Moodle 计分相同）。",
        "rubric": "评分标准：选择正确且理由点明决定因素（见下方依据的事实）得满分；选择正确但理由不充分得一半；其余 0 分。",
        "explain_on_sheet": "✎ 请在答题卡第 {} 题的方框内写出理由。",
        "points": ("{} 分", "{} 分"),
        "key": "答案",
        "key_heading": "答案：{}",
        "grid": "各卷正确选项",
        "detail": "逐题解析：每个选项对错的理由及所依据的事实",
        "where": "各卷题号：{}",
        "facts": "依据：",
        "provenance": "附录：每道题的出处",
        "provenance_note": "供课程作者使用，评分时不需要：每道题及其所依据事实的编号、各事实在本机的结果，以及在哪些环境中验证过。",
        "provenance_columns": ("各卷题号", "题目", "依据的事实（本机结果）"),
        "verified": "已对照 torch {torch} 验证（{passed} 项通过，{skipped} 项跳过）",
        "answer_sheet": "答题卡",
        "answer_how": "请涂满所选答案的圆圈；标有“多选”的题目请涂满所有正确选项。情景题（✎）：涂好圆圈后，在下方该题的方框内写出理由。",
        "marking": "评分表",
        "marking_how": ("将本页与同一卷别的学生答题卡并排对照：涂黑的圆圈即正确答案，其后为分值。多选题按答案中的规则计分；"
                        "✎ 表示情景题：请按答案中的评分标准批改答题卡上该题方框内的理由。"),
        "on_paper": "✎",
        "explain_heading": "✎ 写出理由：每道情景题一个方框",
    },
}

_COMMON = {
    "en": {
        "workshop": {
            "agenda": "🗓️ Agenda",
            "title_line": "{start}–{end} · {minutes} min · {lessons} lessons · {questions} questions",
            "row_break": "☕ Break · {n} min",
            "row_closing": "📋 Take-aways and your questions",
            "row_end": "End",
            "break": "☕ Break",
            "back_at": "Back at {clock}",
            "closing": "📋 Take-aways",
            "handout_line": "Handout: {name}",
            "script": "Run the code yourself: {name}",
            "docs": "The reference: docs.pytorch.org › torch.backends",
            "clock": "{clock} · {n} min",
            "clock_part": "{clock} · {n} min for these {total} slides (slide {k})",
            "clock_cont": " · continued",
            "answer_is": "The answer: {letters}. ",
            "why": "{mark} {letter}: {why}",
            "explain": "Explain: ",
            "analogy": "Picture it: ",
            "quote": "The docs say: ",
            "review_of": "Recap of: {titles}.",
            "answers_title": "{title}: the answers",
            "reasons_title": "{title}: why each answer holds",
            "handout": {"agenda": "Agenda", "points": "Key points", "takeaway": "Takeaway:",
                        "cheat": "Cheat sheet: the flags", "cheat_columns": ["Flag", "Default", "When to change"],
                        "self_test": "Self-test", "self_test_how": "The questions of the session: answer them, then "
                        "check yourself against the answers on page {page}.",
                        "answers": "Self-test: the answers", "answer_is": "Answer: {letters}",
                        "marked": "{mark} Marked: {note}. Everything else was verified against torch {torch}.",
                        "links": "Links", "docs": "torch.backends reference"},
            "script_head": "The code samples of the workshop, in the order they are shown: run them live, cell by cell.",
            "script_raises": "the sample shows this error",
            "script_gpu": "skipped here: no CUDA GPU",
            "notes": {
                "opening": ("Welcome the room: {summary}", "What brought you here: which machine do you run PyTorch on?"),
                "agenda": ("Walk the route and the clock: we end at {end}; reviews come every half hour at most.",
                           "Which stop on this route matters most to you?"),
                "code": ("Run it live from {script}, cell {cell}: {caption}", "Before I run it: what will it print?"),
                "code_raises": ("Run it live from {script}, cell {cell}: {caption}",
                                "Before I run it: which line fails, and with what error?"),
                "table": ("Read the table row by row: {takeaway}", "Cover the column “{column}”: who can give it for “{row}”?"),
                "game": ("A game: only the situations show. Let teams vote on every column, then click on to reveal.",
                         "Which settings would you pick for each situation?"),
                "reveal": ("Reveal the answers row by row; the next slide says why each one holds.",
                           "Which row did most teams get wrong, and why?"),
                "diagram": ("Walk the picture box by box: {takeaway}", "Where on this picture does your own setup land?"),
                "quiz": ("Read the question, give the room 30 seconds, then take a show of hands per letter. {answer}",
                         "{stem}"),
                "answer": ("Go through every option, the wrong ones first.", "Who picked a wrong option? What made it tempting?"),
                "review": ("Ask a volunteer to say each takeaway in their own words. {recap}",
                           "Which of these would you explain to a colleague first?"),
                "break": ("Break until {clock}: say when you start again.", "Anything from the first part to pick up after the break?"),
                "section": ("{summary}", "What do you expect {module} to control? Shout out one guess."),
                "closing": ("Point to the handout and the script: every sample runs as shown. Take the last questions.",
                            "What will you change in your own code tomorrow?"),
            },
        },
        # not verified here (reasons); verified against torch X on DATE; needs X; about X; joiner
        "needs": ("not verified here ({})", "verified against torch {} on {}", "needs {}", "about {}", "; "),
        "verified_torch": "verified against torch {}",
        "without": "builds without {}",
        "other_needs": {"torch-range": "another torch version", "rocm": "ROCm"},
        # the one phrasing for "several options are correct", added by every output (content never writes it)
        "multi_hint": "(select all that apply)",
        "where": ("verified on torch {}", " (here)", ", "),
        "pass_skip": "({passed} pass, {skipped} skip)",
        "verified_mark": "✓ verified",  # a card's footer: the mark, the details (where, which claims) folded under it
        "unverified_mark": "⚠ not verified",  # the footer of a card no run verified: why, and the sources, folded
        "card_sources": ("Source: ", "Sources: "),  # before the links in a card's folded footer: one, several
        "releases": {"since": "since torch {}", "until": "until torch {}", "between": "torch {} to {}",
                     "only": "torch {} only"},
        "sample": {"fragment": "excerpt: part of a larger program", "gpu": "needs a CUDA GPU"},
        "lessons_minutes": ("{lessons} lesson · {minutes} min", "{lessons} lessons · {minutes} min"),
    },
    "zh": {
        "workshop": {
            "agenda": "🗓️ 日程",
            "title_line": "{start}–{end} · {minutes} 分钟 · {lessons} 节课 · {questions} 道题",
            "row_break": "☕ 休息 · {n} 分钟",
            "row_closing": "📋 要点回顾与答疑",
            "row_end": "结束",
            "break": "☕ 休息",
            "back_at": "{clock} 继续",
            "closing": "📋 带走的要点",
            "handout_line": "讲义：{name}",
            "script": "自己运行代码：{name}",
            "docs": "参考文档：docs.pytorch.org › torch.backends",
            "clock": "{clock} · {n} 分钟",
            "clock_part": "{clock} · {n} 分钟，共 {total} 页（第 {k} 页）",
            "clock_cont": " · 续",
            "answer_is": "答案：{letters}。",
            "why": "{mark} {letter}：{why}",
            "explain": "补充讲解：",
            "analogy": "打个比方：",
            "quote": "文档原文：",
            "review_of": "回顾：{titles}。",
            "answers_title": "{title}：答案揭晓",
            "reasons_title": "{title}：每个答案的理由",
            "handout": {"agenda": "日程", "points": "要点", "takeaway": "带走一句话：",
                        "cheat": "速查表：开关", "cheat_columns": ["开关", "默认值", "何时修改"],
                        "self_test": "自测题", "self_test_how": "课上讲过的题目：先自己作答，再对照第 {page} 页的答案。",
                        "answers": "自测题答案", "answer_is": "答案：{letters}",
                        "marked": "{mark} 标记的内容：{note}。其余内容均已对照 torch {torch} 验证。",
                        "links": "链接", "docs": "torch.backends 参考文档"},
            "script_head": "本工作坊的代码示例，按讲授顺序排列：逐段现场运行。",
            "script_raises": "示例要展示的就是这个错误",
            "script_gpu": "此处跳过：没有 CUDA GPU",
            "notes": {
                "opening": ("欢迎大家：{summary}", "你平时在什么机器上跑 PyTorch？"),
                "agenda": ("讲一下路线和时间：我们在 {end} 结束；最多每半小时复习一次。", "这条路线上哪一站对你最重要？"),
                "code": ("现场运行 {script} 的第 {cell} 段：{caption}", "运行之前先猜：它会输出什么？"),
                "code_raises": ("现场运行 {script} 的第 {cell} 段：{caption}", "运行之前先猜：哪一行会出错？报什么错？"),
                "table": ("逐行讲解这张表：{takeaway}", "遮住“{column}”这一列：谁能说出“{row}”对应的内容？"),
                "game": ("游戏时间：只显示场景。让各组对每一列投票，然后点击进入下一页揭晓。", "每个场景你会选什么设置？"),
                "reveal": ("逐行揭晓答案；下一页说明每一行为什么成立。", "哪一行错的组最多？为什么？"),
                "diagram": ("逐个方框讲解这张图：{takeaway}", "你自己的环境落在图中的哪个位置？"),
                "quiz": ("朗读题目，给大家 30 秒思考，然后按选项举手投票。{answer}", "{stem}"),
                "answer": ("逐一讲解每个选项，先讲错误选项。", "谁选了错误选项？它为什么看起来很有道理？"),
                "review": ("请一位同学用自己的话复述每条要点。{recap}", "这些要点里，你会最先讲给同事听哪一条？"),
                "break": ("休息到 {clock}：说明何时继续。", "休息之后，前半部分还有什么要补充的吗？"),
                "section": ("{summary}", "你觉得 {module} 控制的是什么？大胆猜一个。"),
                "closing": ("介绍讲义和脚本：每段示例都能照原样运行。回答最后的问题。", "明天你会在自己的代码里改什么？"),
            },
        },
        "needs": ("未在此环境验证（{}）", "已于 {1} 对照 torch {0} 验证", "需要 {}", "针对{}", "；"),
        "verified_torch": "已对照 torch {} 验证",
        "without": "不含 {} 的构建版",
        "other_needs": {"torch-range": "其他 torch 版本", "rocm": "ROCm"},
        "multi_hint": "（多选）",
        "where": ("已验证：torch {}", "（本机）", "、"),
        "pass_skip": "（{passed} 项通过，{skipped} 项跳过）",
        "verified_mark": "✓ 已验证",
        "unverified_mark": "⚠ 未验证",
        "card_sources": ("出处：", "出处："),
        "releases": {"since": "torch {} 起", "until": "torch {} 及更早", "between": "torch {} 至 {}",
                     "only": "仅 torch {}"},
        "sample": {"fragment": "节选：较大程序的一部分", "gpu": "需要 CUDA GPU"},
        "lessons_minutes": ("{lessons} 节课 · {minutes} 分钟", "{lessons} 节课 · {minutes} 分钟"),
    },
}

WORDS = {lang: {**common, "slides": _SLIDES[lang], "quiz": _QUIZ[lang]} for lang, common in _COMMON.items()}


def words(lang: str) -> dict:
    """The phrases of ``lang`` (English for a language the table lacks)."""
    return WORDS.get(lang, WORDS["en"])


def lessons_and_minutes(lang: str, lessons: int, minutes: int) -> str:
    """'3 lessons · 24 min' (a line of an outline or an agenda)."""
    one, many = words(lang)["lessons_minutes"]
    return (one if lessons == 1 else many).format(lessons=lessons, minutes=minutes)


# What the outputs call each capability a fact may need (``worker.CAPABILITIES``), in English and Chinese.
CAPABILITY_NAMES = {
    "cuda": ("CUDA", "CUDA"),
    "cuda-built": ("CUDA builds", "CUDA 构建版"),
    "rocm-built": ("ROCm builds", "ROCm 构建版"),
    "cudnn": ("cuDNN", "cuDNN"),
    "cudnn-built": ("builds with cuDNN", "含 cuDNN 的构建版"),
    "mps": ("MPS", "MPS"),
    "mps-built": ("builds with MPS", "含 MPS 的构建版"),
    "mkl": ("MKL", "MKL"),
    "mkldnn": ("oneDNN", "oneDNN"),
    "openmp": ("OpenMP", "OpenMP"),
    "opt_einsum": ("opt_einsum", "opt_einsum"),
    "cusparselt": ("cuSPARSELt", "cuSPARSELt"),
    "kleidiai": ("KleidiAI", "KleidiAI"),
    "nnpack": ("NNPACK", "NNPACK"),
    "xnnpack": ("XNNPACK", "XNNPACK"),
    "triton": ("Triton", "Triton"),
}
