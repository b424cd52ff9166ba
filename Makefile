# The front door. `make serve` and `make test` each set up what they need first.
.PHONY: setup serve test test-fast lint bench clean messages

UV := .cache/uv-0.13.9/bin/uv

setup:
	@scripts/bootstrap.sh >/dev/null

serve: setup
	$(UV) run garage-tools serve

# The whole suite twice (scripts/test-both-legs.sh): on the embedded defaults (SQLite, limits in
# memory), then on the scale-out stack (every test server on its own PostgreSQL database and Redis key
# prefix); both legs run even when the first fails. One pytest worker per core (`-n auto`); a file's
# tests stay on one worker, so its module fixtures (servers, browsers) start once.
PYTEST_ARGS ?= -n auto --dist loadfile
test: setup
	scripts/ensure-services.sh
	scripts/setup-conformance.sh
	scripts/setup-axe.sh
	scripts/test-both-legs.sh $(PYTEST_ARGS)

# The inner loop: the embedded leg without the browser, slow and PostgreSQL tests (the markers are
# described in pyproject.toml). `make test` remains the check that counts.
test-fast: setup
	$(UV) run pytest $(PYTEST_ARGS) -m "not browser and not slow and not postgres"

lint: setup
	$(UV) run ruff check src tests bench
	$(UV) run ruff format --check src tests bench
	$(UV) run mypy
	$(UV) run lint-imports

# Extract the pages' words into locales/messages.pot and merge them into every language's catalog
# (new entries arrive untranslated; tests/unit/test_translations.py fails until a translator fills them).
LOCALES := src/garage_tools/locales
messages: setup
	$(UV) run pybabel extract -F babel.cfg --no-location --sort-output --omit-header -o $(LOCALES)/messages.pot .
	$(UV) run pybabel update -i $(LOCALES)/messages.pot -d $(LOCALES) --no-fuzzy-matching --ignore-obsolete

bench: setup
	scripts/ensure-services.sh
	command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk)
	$(UV) run python bench/run.py

clean:
	rm -rf .cache .venv .pytest_cache .mypy_cache .ruff_cache .import_linter_cache tests/conformance/node_modules tests/accessibility/node_modules tests/mcp-remote/node_modules tests/apps-host/node_modules tests/apps-host/dist tests/inspector/node_modules
