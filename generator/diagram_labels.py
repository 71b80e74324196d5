"""The words on the card diagrams (``generator.card_diagrams``), per language.

Plain data with no imports, so ``tools/make_cjk_font.py`` can read which characters
the shipped CJK font must hold. ``\\n`` breaks a label where it must break; longer
texts are wrapped to the width they are drawn in.
"""

LABELS = {
    "en": {
        "gpu": "NVIDIA / AMD GPU",
        "cpu": "CPU",
        "apple": "Apple GPU",
        "other": "Cross-cutting",
        "cudnn_title": "cuDNN flags: which switch for which situation?",
        "yes": "yes",
        "no": "no",
        "bit_exact": "Need bit-exact reruns?",
        "shapes_fixed": "Input shapes fixed?",
        "shapes_vary": "Shapes vary (NLP, detection)",
        "autotune": "(autotune once per shape)",
        "defaults_fine": "(defaults are fine)",
        "cudnn_debug": "Debugging a suspected cuDNN bug? enabled = False runs PyTorch's own kernels.",
        "sdpa_title": "scaled_dot_product_attention: default backend priority",
        "flash_detail": "fp16/bf16, CUDA, head_dim limits",
        "efficient_detail": "memory-efficient kernel",
        "math_detail": "plain PyTorch ops, runs everywhere",
        "cudnn_detail": "cuDNN fused attention",
        "sdpa_rule": "The first enabled backend whose constraints the inputs meet runs.",
        "tf32_title": "Floating-point formats: sign | exponent | mantissa bits",
        "sign": "sign",
        "exponent": "exponent",
        "mantissa": "mantissa",
        "tf32_rule": "TF32 keeps FP32's range (8 exponent bits) with FP16's precision (10 mantissa bits).",
    },
    "zh": {
        "gpu": "NVIDIA / AMD GPU",
        "cpu": "CPU",
        "apple": "Apple GPU",
        "other": "通用",
        "cudnn_title": "cuDNN 开关：什么情况用哪个？",
        "yes": "是",
        "no": "否",
        "bit_exact": "需要逐位一致的重跑？",
        "shapes_fixed": "输入形状固定？",
        "shapes_vary": "形状多变（NLP、检测）",
        "autotune": "（每种形状自动调优一次）",
        "defaults_fine": "（默认即可）",
        "cudnn_debug": "怀疑 cuDNN 有缺陷？enabled = False 改用 PyTorch 自己的内核。",
        "sdpa_title": "scaled_dot_product_attention：默认后端优先级",
        "flash_detail": "fp16/bf16、CUDA、head_dim 有限制",
        "efficient_detail": "省内存的内核",
        "math_detail": "普通 PyTorch 运算，处处可用",
        "cudnn_detail": "cuDNN 融合注意力",
        "sdpa_rule": "运行第一个已启用、且输入满足其约束的后端。",
        "tf32_title": "浮点格式：符号位 | 指数位 | 尾数位",
        "sign": "符号",
        "exponent": "指数",
        "mantissa": "尾数",
        "tf32_rule": "TF32 保留 FP32 的范围（8 个指数位）和 FP16 的精度（10 个尾数位）。",
    },
}


def cjk_characters() -> str:
    """Every character a Chinese diagram draws with the CJK font (its labels that are not plain ASCII)."""
    return "".join(sorted({c for text in LABELS["zh"].values() if not text.isascii() for c in text}))
