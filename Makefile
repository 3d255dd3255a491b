# Two commands do all set-up on a fresh machine:
#   make run    check Qt's system libraries, create .venv, install what SVT Studio needs to run (no
#               test tools, no PySpark), start it on the bundled sample dataset
#   make test   create .venv, install SVT Studio with its test tools, run the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUN_STAMP  := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test lint bench clean syslibs

# First, before anything is created or downloaded: the system libraries Qt's window needs (standard
# library only, so the system Python runs it); a missing one is named with the command that installs it.
syslibs:
	@$(PYTHON) svtgui/ui/common/system_libs.py

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUN_STAMP)

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(TEST_STAMP) $(RUN_STAMP)

run: syslibs
	$(MAKE) --no-print-directory $(RUN_STAMP)
	$(BIN)/svtgui --sample census

test: $(TEST_STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -n 2 tests

lint: $(TEST_STAMP)
	$(BIN)/ruff check svtgui tests bench resources packaging
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) build dist *.egg-info
