# Two commands do all set-up on a fresh machine:
#   make run    create .venv, install SVT Studio, start it on the bundled sample dataset
#   make test   create .venv, install SVT Studio with its test tools, run the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/svtgui --sample census

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -n 2 tests

lint: $(STAMP)
	$(BIN)/ruff check svtgui tests bench resources packaging
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) build dist *.egg-info
