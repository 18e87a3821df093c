"""Planted secrets for the redaction tests, one per kind the exporter must remove.

Built by concatenation at import time so that secret scanners reading this repository do not
flag fake keys (and so no real-looking key sits in the source as one literal).
"""

from __future__ import annotations

_A = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"

# kind → the secret text that must never appear in an export
SECRETS = {
    "anthropic-key": "sk-" + "ant-api03-" + _A + "-_xyzXYZ",
    "openai-key": "sk-" + "proj-" + _A[::-1] + "Zz09",
    "aws-access-key-id": "AKIA" + "IOSFODNN7Q2W3E4R",
    "aws-secret-key": "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYQ2W3E4R5T6",
    "github-token": "ghp" + "_" + _A,
    "github-pat": "github" + "_pat_" + "11ABCDEFG0" + _A + "_more",
    "github-oauth": "gho" + "_" + _A[::-1],
    "github-server": "ghs" + "_" + _A.lower(),
    "slack-token": "xox" + "b-1234567890-" + "abcdefghijKLMN",
    "stripe-key": "sk" + "_live_" + "abcdefghijklmnop1234",
    "stripe-restricted": "rk" + "_live_" + "ponmlkjihgfedcba4321",
    "google-api-key": "AIza" + "SyA" + "1234567890abcdefghijklmnopqrstuv",
    "jwt": "eyJ" + "hbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "private-key": "MIIEpAIBAAKCAQEAplantedkeymaterial0123456789",
    "url-password": "hunter2pass",
    "connection-string-password": "S3cr3tConn!",
    "secret-assignment": "supersecretvalue42",
    "json-secret": "abcd1234jsonsecret",
    "home-user": "plantedhomeuser",
}

# A text that carries each secret in the context where it is usually found.
def planted_text() -> str:
    s = SECRETS
    return "\n".join([
        f"ANTHROPIC_KEY is {s['anthropic-key']} and openai {s['openai-key']}",
        f"aws id {s['aws-access-key-id']} aws_secret_access_key = {s['aws-secret-key']}",
        f"tokens {s['github-token']} {s['github-pat']} {s['github-oauth']} {s['github-server']}",
        f"slack {s['slack-token']} stripe {s['stripe-key']} {s['stripe-restricted']} google {s['google-api-key']}",
        f"Authorization: Bearer {s['jwt']}",
        "-----BEGIN RSA " + "PRIVATE KEY-----", s["private-key"], "-----END RSA " + "PRIVATE KEY-----",
        f"postgres://admin:{s['url-password']}@db.example.com:5432/app",
        f"Server=db;User Id=sa;Password={s['connection-string-password']};",
        f"DB_PASSWORD={s['secret-assignment']}",
        f'{{"api_key": "{s["json-secret"]}"}}',
        f"/home/{s['home-user']}/project/src/app.py and /Users/{s['home-user']}/x and C:\\Users\\{s['home-user']}\\y",
    ])


# --- every kind in every place (issue 29, point 3) -------------------------------------------------
PLACES = ("prompt", "tool-input", "tool-result", "tool-use-result", "thinking", "answer")


def _ts(i: int, s: int) -> str:
    return f"2025-06-01T{10 + i // 60:02d}:{i % 60:02d}:{s:02d}.000Z"


def place_session(place: str, sid: str, texts: list[str]) -> list[dict]:
    """A session of one turn per text, each text in ``place`` (one of PLACES) and only there: the
    prompt, the Bash command, the tool result, the ``toolUseResult`` stdout, a thinking block or
    the answer; every other place holds a plain word."""
    from util import assistant, tool_result, user

    lines, parent, kw = [], None, {"sid": sid, "cwd": "/srv/proj"}
    for i, text in enumerate(texts):
        def at(p: str, plain: str) -> str:
            return text if place == p else plain

        blocks = [{"type": "thinking", "thinking": text, "signature": "c2ln"}] if place == "thinking" else []
        blocks.append({"type": "tool_use", "id": f"t{i}", "name": "Bash",
                       "input": {"command": at("tool-input", "env"), "description": f"look at step {i}"}})
        # (a renderer shows toolUseResult's stdout over the result's text: none when the text is planted)
        out = None if place == "tool-result" else {"stdout": at("tool-use-result", "done"), "stderr": "",
                                                   "interrupted": False}
        lines += [user(f"u{i}", at("prompt", f"step {i}: check the deployment"), parent=parent, ts=_ts(i, 0), **kw),
                  assistant(f"a{i}", blocks, parent=f"u{i}", mid=f"msg_{i}a", rid=f"req_{i}a", ts=_ts(i, 1), **kw),
                  tool_result(f"r{i}", f"t{i}", at("tool-result", "done"), parent=f"a{i}", extra=out, ts=_ts(i, 2),
                              **kw),
                  assistant(f"b{i}", [{"type": "text", "text": at("answer", f"Step {i} done.")}], parent=f"r{i}",
                            mid=f"msg_{i}b", rid=f"req_{i}b", ts=_ts(i, 3), **kw)]
        parent = f"b{i}"
    return lines
