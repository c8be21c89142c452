# Two commands set up a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test bench clean gnubg corpus models

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/bgref run --sim

# GNU Backgammon imports the files bgref writes in one of the tests; installed where apt-get is.
gnubg:
	@if command -v gnubg >/dev/null || [ -x /usr/games/gnubg ]; then :; \
	elif command -v apt-get >/dev/null; then \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  { $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq gnubg; } \
	    || echo "gnubg could not be installed: its import test will be skipped"; \
	else echo "no apt-get: the gnubg import test will be skipped"; fi

test: $(STAMP) gnubg
	$(PY) -m pytest -q

# Every match of the shared corpus validated, written, read back and exported.
corpus: $(STAMP)
	$(PY) bench/check_corpus.py --roundtrip

bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	$(PY) bench/legal.py
	$(PY) bench/check_corpus.py
	$(PY) bench/link.py
	$(PY) bench/dice.py
	$(PY) bench/vision.py
	$(PY) bench/referee.py

# The vision networks in vision/models, made again from the simulated table (hours on two
# cores; PyTorch comes with the train extra). DATA holds the drawn scenes.
DATA ?= data
models: $(STAMP)
	$(PY) -m pip install --quiet -e '.[train]'
	$(PY) -m training.checkers data --out $(DATA)/checkers/a --first 30000000 --scenes 1500
	$(PY) -m training.checkers data --out $(DATA)/checkers/b --first 30001500 --scenes 1500
	$(PY) -m training.checkers fit $(DATA)/checkers/a $(DATA)/checkers/b --epochs 5 --threads 2
	$(PY) -m training.dice --net board --tables 2000 --epochs 24 --data $(DATA)/dice_board.npz
	$(PY) -m training.dice --net photo --epochs 30 --data $(DATA)/dice_photo.npz
	$(PY) -m training.dice --net board_photo --epochs 30 --data $(DATA)/dice_board_photo.npz
	$(PY) -m training.cube

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
