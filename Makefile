# The front door. `make serve` and `make test` each set up what they need first.
.PHONY: setup serve test lint bench clean

UV := .cache/uv-0.13.9/bin/uv

setup:
	@scripts/bootstrap.sh >/dev/null

serve: setup
	$(UV) run garage-tools serve

test: setup
	scripts/ensure-services.sh
	scripts/setup-conformance.sh
	$(UV) run pytest

lint: setup
	$(UV) run ruff check src tests bench
	$(UV) run ruff format --check src tests bench
	$(UV) run mypy

bench: setup
	$(UV) run python bench/run.py

clean:
	rm -rf .cache .venv .pytest_cache .mypy_cache .ruff_cache tests/conformance/node_modules
