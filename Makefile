# Quick start: `make demo` (the main job) and `make test`. Both create .venv.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEMO_OUT ?= out/demo

.PHONY: demo test browser examples check-modelica clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,reference]'
	touch $(STAMP)

# The main job: build the RTM FMU, convert the shipped van's MBM data, compare, sensitivity,
# identification, validation, report ($(DEMO_OUT)/report/report.html). A previous run is kept
# as $(DEMO_OUT).previous.
demo: $(STAMP)
	@if [ -d $(DEMO_OUT) ]; then rm -rf $(DEMO_OUT).previous && mv $(DEMO_OUT) $(DEMO_OUT).previous; fi
	$(BIN)/pybridge demo -o $(DEMO_OUT)

# The two workers get whole test modules, the longest first (tests/conftest.py, LONGEST_FIRST); the
# long physics checks marked slow are left out (`$(BIN)/python -m pytest -m slow` runs them).
test: $(STAMP) browser
	$(BIN)/python -m pytest -n 2 --dist loadfile -q

# Headless Chromium for the report's browser test (Debian package; installed when run as root with
# apt-get, else the test is skipped with the reason).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian chromium for the report's browser test"; \
	    (apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1)) || \
	    echo "chromium could not be installed: the report's browser test will be skipped"; \
	  else echo "no chromium (needs root and apt-get to install): the report's browser test will be skipped"; fi; }

examples: $(STAMP)
	$(BIN)/pybridge examples --out out/examples

check-modelica: $(STAMP)
	$(BIN)/fmu-build check

clean:
	rm -rf $(VENV) out build *.egg-info
