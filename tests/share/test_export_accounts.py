"""Sharing: the account e-mail (session_context attachment) and the account and organisation ids
(bridge-session line) never reach an export by default, wherever else they are repeated."""

from __future__ import annotations

import pytest

from ccreport.share.export import ExportOptions
from ccreport.share.run import run_export
from util import assistant, make_home, user

EMAIL = "ana.pereira@example-corp.io"
ACCOUNT, ORG = "8d0c51f0-97aa-4d3e-a2f6-1c4b1a1e0b11", "0f4e0d1a-5a7b-4c1e-9d7e-3b2a1c0d9e8f"


def _home(tmp_path):
    lines = [
        # Mentioned before the lines that hold it: the whole file is read for them first.
        user("u0", f"my login is {EMAIL}, org {ORG}"),
        {"type": "bridge-session", "bridgeSessionId": "bridge_1", "accountUuid": ACCOUNT, "organizationUuid": ORG,
         "sessionId": "s1"},
        {"type": "attachment", "uuid": "a1", "parentUuid": "u0", "sessionId": "s1", "timestamp": "2025-06-01T10:00:00Z",
         "attachment": {"type": "session_context", "content": f"Signed in as {EMAIL}"},
         "rendered": [{"type": "text", "text": f"account: {EMAIL} ({ACCOUNT})"}]},
        assistant("x1", [{"type": "text", "text": f"Your account {ACCOUNT} is fine."}], parent="a1"),
    ]
    return make_home(tmp_path / "home", {"-home-u-proj": {"s1.jsonl": lines}})


@pytest.mark.parametrize("fmt", ["html", "md"])
def test_account_values_are_redacted_by_default(tmp_path, fmt):
    home = _home(tmp_path)
    out = tmp_path / f"out.{fmt}"
    notes = run_export(home, "s1", str(out), ExportOptions(format=fmt))
    text = out.read_text(encoding="utf-8")
    for secret in (EMAIL, ACCOUNT, ORG):
        assert secret not in text
    assert "[REDACTED:account-id]" in text
    assert any("account-id" in n for n in notes)


def test_no_redact_keeps_them(tmp_path):
    home = _home(tmp_path)
    out = tmp_path / "out.html"
    run_export(home, "s1", str(out), ExportOptions(format="html", redact=False))
    assert EMAIL in out.read_text(encoding="utf-8")


# Claude Code 2.1.2xx (docs/formats.md): bridge-session lines name their owner's account and
# organisation; the ids are repeated here where a reader sees them (a prompt and the answer).
OWNER, OWNER_ORG = "3b1f6a2c-7d4e-4f8a-9c0b-5e6d7f8a9b0c", "c0ffee00-1234-4abc-8def-0123456789ab"


def _bridge_home(tmp_path):
    lines = [
        {"type": "bridge-session", "bridgeSessionId": "bridge_01HZX", "lastSequenceNum": 7,
         "ownerAccountUuid": OWNER, "ownerOrganizationUuid": OWNER_ORG, "sessionId": "s2"},
        user("u0", f"why does the bridge say {OWNER} / {OWNER_ORG}?", sid="s2"),
        assistant("x1", [{"type": "text", "text": f"Account {OWNER} of organisation {OWNER_ORG} owns it."}],
                  parent="u0", sid="s2"),
    ]
    return make_home(tmp_path / "home", {"-srv-proj": {"s2.jsonl": lines}})


@pytest.mark.parametrize("fmt", ["html", "md", "summary"])
def test_bridge_session_owner_ids_are_redacted_in_every_format(tmp_path, fmt):
    home = _bridge_home(tmp_path)
    out = tmp_path / ("out.html" if fmt == "html" else "out.md")
    opts = ExportOptions(format="html" if fmt == "html" else "md", summary=fmt == "summary")
    notes = run_export(home, "s2", str(out), opts)
    text = "".join(p.read_text(encoding="utf-8") for p in tmp_path.glob("out*"))
    assert OWNER not in text and OWNER_ORG not in text
    assert "[REDACTED:account-id]" in text
    assert any("account-id" in n for n in notes)
    run_export(home, "s2", str(out), ExportOptions(format=opts.format, summary=opts.summary, redact=False))
    assert OWNER in "".join(p.read_text(encoding="utf-8") for p in tmp_path.glob("out*"))


def test_account_fields_are_redacted_by_their_name():
    from ccreport.share.redact import Redactor

    r = Redactor(homes=[])
    line = {"type": "bridge-session", "ownerAccountUuid": "acct_7Hq", "ownerOrganizationUuid": "org-42",
            "accountUuid": OWNER, "organizationId": OWNER_ORG, "bridgeSessionId": "bridge_01HZX"}
    out = r.value(line)
    assert out["bridgeSessionId"] == "bridge_01HZX"
    assert [k for k, v in out.items() if v == "[REDACTED:account-id]"] == [
        "ownerAccountUuid", "ownerOrganizationUuid", "accountUuid", "organizationId"]
