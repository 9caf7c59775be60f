from __future__ import annotations

import pytest

from execrl.sandbox.executor import LocalExecutor


@pytest.fixture(scope="session")
def executor():
    with LocalExecutor(workers=2) as ex:
        yield ex
