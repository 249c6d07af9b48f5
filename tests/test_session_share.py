"""The session's shared folder (tests/session_share.py): what one test process builds, the others read."""

import pytest

import session_share


@pytest.fixture
def shared(tmp_path, monkeypatch):
    monkeypatch.setenv(session_share.VARIABLE, str(tmp_path))
    return tmp_path


def test_a_build_runs_once_and_every_later_caller_gets_its_path(shared):
    calls = []

    def build(path):
        calls.append(path)
        (shared / "release").mkdir()
        (shared / "release" / "README.md").write_text("built")

    first = session_share.built_once("release", build)
    second = session_share.built_once("release", build)  # as another process would: the claim is taken
    assert first == second == str(shared / "release")
    assert calls == [str(shared / "release")]
    assert (shared / "release" / "README.md").read_text() == "built"


def test_a_failed_build_fails_every_caller_with_its_reason(shared):
    def build(path):
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        session_share.built_once("venv", build)
    with pytest.raises(AssertionError, match="OSError: disk full"):
        session_share.built_once("venv", build)


def test_exactly_one_claim_wins(shared):
    assert [session_share.claim("graded-x") for _ in range(3)] == [True, False, False]
