"""A table of fake secrets, one per kind the export must redact (issue 18, point 4), each in the
context it is usually found in. Values are made at import time from a seeded hash, so they have
the shape and the randomness of real ones (rules check entropy) while no key sits in this source
as one literal for scanners to flag. None of them is real.
"""

from __future__ import annotations

import base64
import hashlib

HEX = "0123456789abcdef"
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def r(alphabet: str, n: int, tag: str) -> str:
    out, i = [], 0
    while len(out) < n:
        for b in hashlib.sha256(f"{tag}/{i}".encode()).digest():
            out.append(alphabet[b % len(alphabet)])
        i += 1
    return "".join(out[:n])


_B64 = base64.b64encode(bytes.fromhex(r(HEX, 128, "azure"))).decode()  # 64 bytes → 88 characters
_PEM = r(ALNUM + "+/", 64, "pem")

# kind → (the secret, a line holding it as it is usually written)
KINDS: dict[str, tuple[str, str]] = {}


def _k(kind: str, secret: str, context: str = "{}") -> None:
    KINDS[kind] = (secret, context.format(secret))


_k("anthropic", "sk-" + "ant-api03-" + r(ALNUM + "-_", 93, "ant") + "AA", "ANTHROPIC_API_KEY={}")
_k("openai", "sk-" + "proj-" + r(ALNUM + "-_", 74, "oai") + "T3Blbk" + "FJ" + r(ALNUM, 20, "oai2"), "key: {}")
_k("aws-access-key-id", "AKIA" + r(UPPER, 16, "akia"), "aws_access_key_id = {}")
_k("aws-secret-key", r(ALNUM + "/+", 40, "awss"), "aws_secret_access_key = {}")
_k("github-pat-classic", "ghp" + "_" + r(ALNUM, 36, "ghp"), "git clone https://x:{}@github.com/o/r")
_k("github-pat-fine", "github" + "_pat_" + r(ALNUM, 22, "ghf") + "_" + r(ALNUM, 59, "ghf2"), "GH_TOKEN={}")
_k("github-oauth", "gho" + "_" + r(ALNUM, 36, "gho"), "token {}")
DIGITS = "0123456789"
_k("slack-bot", "xox" + "b-" + r(DIGITS, 12, "sl1") + "-" + r(DIGITS, 13, "sl2") + "-" + r(ALNUM, 24, "sl3"),
   "SLACK_BOT_TOKEN: {}")
_k("slack-webhook", "https://hooks.slack.com/services/" + "T" + r(UPPER, 8, "sw1") + "/B" + r(UPPER, 8, "sw2") + "/"
   + r(ALNUM, 24, "sw3"), "webhook: {}")
_k("stripe", "sk" + "_live_" + r(ALNUM, 24, "stripe"), "Stripe.api_key = '{}'")
_k("google-api", "AIza" + r(ALNUM + "-_", 35, "aiza"), "GOOGLE_API_KEY={}")
_k("jwt", "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ" + r(ALNUM, 40, "jwt1") + "." + r(ALNUM + "-_", 43, "jwt2"),
   "Authorization: Bearer {}")
_k("private-key", _PEM, "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEA{}\n" + r(ALNUM, 64, "pem2")
   + "\n-----END RSA " + "PRIVATE KEY-----")
_k("url-password", "Zq8" + r(ALNUM, 14, "urlpw"), "DATABASE_URL=postgres://app:{}@db.internal:5432/prod")
_k("connection-string", "Xk2" + r(ALNUM, 13, "conn") + "!", "Server=db;Database=app;User Id=sa;Password={};")
_k("env-password", "Pw9" + r(ALNUM, 17, "envpw"), "DB_PASSWORD={}")
_k("json-api-key", r(ALNUM, 32, "jsonkey"), '{{"api_key": "{}"}}')
_k("yaml-password", "Yp4" + r(ALNUM, 15, "yaml"), "  password: \"{}\"")
_k("bearer", r(ALNUM, 40, "bearer"), "curl -H 'Authorization: Bearer {}' https://api.example.net/v1")
_k("npm", "npm" + "_" + r(LOWER, 36, "npm"), "//registry.npmjs.org/:_authToken={}")
_k("huggingface", "hf" + "_" + r(LETTERS, 34, "hf"), "HF_TOKEN={}")
_k("email", "jane.doe." + r(LETTERS[26:], 5, "mail") + "@acme-widgets.io", "Signed-off-by: Jane Doe <{}>")
_k("gitlab-pat", "glpat" + "-" + r(ALNUM + "-_", 20, "glpat"), "GITLAB_TOKEN={}")
_k("basic-auth", base64.b64encode(("deploy:" + r(ALNUM, 16, "basic")).encode()).decode(), "Authorization: Basic {}")
_k("mysql-password", "My5" + r(ALNUM, 11, "mysql") + "#", "mysql -h db.internal -u root -p{} shop < dump.sql")
_k("azure-storage", _B64,
   "DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey={};EndpointSuffix=core.windows.net")
_k("curl-user", "Cu7" + r(ALNUM, 13, "curl"), "curl -u admin:{} https://ci.internal/api/json")
_k("twilio", "SK" + r(HEX, 32, "twilio"), "TWILIO_API_KEY={}")
_k("sendgrid", "SG." + r(ALNUM + "-_", 22, "sg1") + "." + r(ALNUM + "-_", 43, "sg2"), "SENDGRID_API_KEY={}")
_k("gitlab-deploy", "gldt" + "-" + r(ALNUM, 20, "gldt"), "deploy token {}")
_k("gitlab-runner", "glrt" + "-" + r(ALNUM, 20, "glrt"), "runner token: {}")
_k("digitalocean", "dop" + "_v1_" + r(HEX, 64, "do"), "DIGITALOCEAN_TOKEN={}")
_k("shopify", "shpat" + "_" + r(HEX, 32, "shop"), "X-Shopify-Access-Token: {}")
_k("pypi", "pypi-" + "AgEIcHlwaS5vcmc" + r(ALNUM + "-_", 70, "pypi"), "password = {}")
_k("doppler", "dp.pt." + r(ALNUM, 43, "doppler"), "DOPPLER_TOKEN={}")
_k("linear", "lin" + "_api_" + r(ALNUM, 40, "linear"), "LINEAR_API_KEY={}")
_k("postman", "PMAK-" + r(HEX, 24, "pm1") + "-" + r(HEX, 34, "pm2"), "x-api-key: {}")
_k("databricks", "dapi" + r(HEX, 32, "dbx"), "DATABRICKS_TOKEN={}")
_k("grafana", "glsa" + "_" + r(ALNUM, 32, "gr1") + "_" + r(HEX, 8, "gr2"), "GRAFANA_SA_TOKEN={}")
_k("vault", "hvs." + r(ALNUM + "_-", 95, "vault"), "VAULT_TOKEN={}")
_k("age", "AGE-SECRET-KEY-1" + r(BECH32, 58, "age"), "# secret key: {}")
_k("planetscale", "pscale" + "_pw_" + r(ALNUM, 43, "ps"), "PLANETSCALE_PASSWORD={}")
_k("pulumi", "pul-" + r(HEX, 40, "pulumi"), "PULUMI_ACCESS_TOKEN={}")
_k("rubygems", "rubygems" + "_" + r(HEX, 48, "gems"), ":rubygems_api_key: {}")
_k("alibaba", "LTAI" + r(ALNUM, 20, "ali"), "ALIBABA_CLOUD_ACCESS_KEY_ID={}")
_k("square", "sq0atp-" + r(ALNUM + "-_", 22, "square"), "SQUARE_ACCESS_TOKEN={}")
_k("shippo", "shippo" + "_live_" + r(HEX, 40, "shippo"), "SHIPPO_TOKEN={}")
_k("telegram", r("0123456789", 10, "tg1") + ":A" + r(ALNUM + "_-", 34, "tg2"), "TELEGRAM_BOT_TOKEN={}")
_k("heroku", "HRKU-AA" + r(ALNUM + "_-", 58, "heroku"), "HEROKU_API_KEY={}")
_k("openshift", "sha256~" + r(ALNUM + "_-", 43, "oc"), "oc login --token={} --server=https://api.example.net")
_k("notion", "ntn" + "_" + r("0123456789", 11, "n1") + r(ALNUM, 35, "n2"), "NOTION_TOKEN={}")
_k("azure-ad-client-secret", r(ALNUM, 3, "aad1") + "8Q~" + r(ALNUM + "_~.-", 34, "aad2"), "client_secret = {}")
_k("discord", r(HEX, 64, "discord"), "discord_bot_token = {}")
_k("mailchimp", r(HEX, 32, "mc") + "-us12", "MAILCHIMP_API_KEY={}")


def planted_lines() -> str:
    """Every context line, one after another (each secret once)."""
    return "\n".join(f"{kind}: {context}" for kind, (_secret, context) in KINDS.items())
