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
