# torchdeck: `make deck` sets itself up and builds the Anki deck; `make test` runs the tests.
#
#   PYTHON=/path/to/python   use that interpreter (and its torch) instead of .venv
#   TORCH_SPEC=...           what to install when the interpreter has no torch
#                            (default: the CPU build of 2.13.0; a torch already installed is kept)
#   ARGS=...                 extra arguments for the torchdeck command, e.g. ARGS="--lang zh"

TORCH_SPEC ?= torch==2.13.0
ifeq ($(strip $(PYTHON)),)
PY := .venv/bin/python
STAMP := .venv/.torchdeck-installed
else
PY := $(PYTHON)
STAMP := build/.torchdeck-installed-external
endif
TORCHDECK := $(PY) -m generator

.PHONY: setup deck slides quiz quiz-all site all verify lint coverage stats test bench matrix clean

setup: $(STAMP)

.venv/bin/python:
	python3 -m venv .venv
	.venv/bin/python -m pip install --quiet --upgrade pip

# Install torch only where there is none (the point is to verify against the user's
# torch), then torchdeck itself with the test extras, pinned to that torch.
$(STAMP): pyproject.toml | $(if $(strip $(PYTHON)),,.venv/bin/python)
	@$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install --quiet "$(TORCH_SPEC)"
	$(PY) -m pip install --quiet -e ".[test]" "torch==$$($(PY) -W ignore -c 'import torch; print(torch.__version__.split("+")[0])')"
	@mkdir -p $(dir $(STAMP)) && touch $(STAMP)

deck: $(STAMP)
	$(TORCHDECK) deck $(ARGS)

slides: $(STAMP)
	$(TORCHDECK) slides $(ARGS)

# A class's quiz: 20 questions across the modules, at most 4 pages a version.
quiz: $(STAMP)
	$(TORCHDECK) quiz $(ARGS)

# The whole bank (every question that can share a quiz), as quiz-all.*: beside the class's quiz, not over it.
quiz-all: $(STAMP)
	$(TORCHDECK) quiz --all --name all $(ARGS)

# The web course: build/site/index.html, opened from the disk.
site: $(STAMP)
	$(TORCHDECK) site $(ARGS)

all: $(STAMP)
	$(TORCHDECK) build $(ARGS)

verify: $(STAMP)
	$(TORCHDECK) verify $(ARGS)

lint: $(STAMP)
	$(TORCHDECK) lint $(ARGS)
	$(PY) -m ruff check generator tests benchmarks tools
	$(PY) -m mypy

coverage: $(STAMP)
	$(TORCHDECK) coverage $(ARGS)

stats: $(STAMP)
	$(TORCHDECK) stats $(ARGS)

# One worker per core, each test module whole on one worker (its module fixtures build once).
test: $(STAMP)
	$(PY) -m pytest -n auto --dist loadfile

bench: $(STAMP)
	@status=0; for script in benchmarks/bench_*.py; do $(PY) $$script || status=1; done; exit $$status

# The release matrix (not part of `make test`): verify the content against each release in
# a venv of its own, $(MATRIX_DIR)/torch-<release>, created with `pip install torch==<release>.*`
# where missing (a CUDA wheel is about 5 GB; it runs without a GPU), and record every run in
# content/ledger/. Then check that every public name of each release is covered.
MATRIX ?= 2.13 2.14 2.15
MATRIX_DIR ?= $(HOME)
matrix: $(STAMP)
	@status=0; for release in $(MATRIX); do \
	  py="$(MATRIX_DIR)/torch-$$release/bin/python"; \
	  if ! "$$py" -c "import torch" 2>/dev/null; then \
	    python3 -m venv "$(MATRIX_DIR)/torch-$$release" && "$$py" -m pip install --quiet "torch==$$release.*" || exit 1; \
	  fi; \
	  echo "== torch $$release ($$py)"; \
	  $(TORCHDECK) verify --python "$$py" --record --quiet || status=1; \
	  $(TORCHDECK) coverage --python "$$py" --quiet --fail-under 100 || status=1; \
	done; exit $$status

clean:
	rm -rf build
