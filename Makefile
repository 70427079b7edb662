.PHONY: test bench lint

test:
	.venv/bin/pytest

bench:
	.venv/bin/python benchmarks/classad.py

lint:
	.venv/bin/ruff check src tests benchmarks
	.venv/bin/ruff format --check src tests benchmarks
