# Quick start: `make demo` (the main job) and `make test`. Both create .venv.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test check-modelica clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/fmu-build VehicleRTM.Vehicles.RTM14DoF --backend native -o out/fmu
	$(BIN)/fmu-build VehicleRTM.QuarterCars.KCRig --backend native -o out/fmu
	$(BIN)/fmu-build VehicleRTM.Vehicles.FourPost10DoF --backend native -o out/fmu
	$(BIN)/pybridge examples --out out/examples

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

check-modelica: $(STAMP)
	$(BIN)/fmu-build check

clean:
	rm -rf $(VENV) out build *.egg-info
