from __future__ import annotations

import pytest

from garage_tools.knowledge.loader import Knowledge, load_knowledge


@pytest.fixture(scope="session")
def knowledge() -> Knowledge:
    """The packaged knowledge base, loaded and cross-checked once."""
    return load_knowledge()
