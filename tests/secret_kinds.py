"""A table of fake secrets, one per kind the export must redact (issue 18, point 4; issue 29 added
the kinds pasted without a NAME=, account ids and passwords on command lines), each in the
context it is usually found in. ``CONTEXT_ONLY`` names the kinds secret only by that context;
``fragments(kind)`` the pieces of a secret that must not survive an export. Values are made at import time from a seeded hash, so they have
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


def _rand(alphabet: str, n: int, tag: str) -> str:
    out, i = [], 0
    while len(out) < n:
        for b in hashlib.sha256(f"{tag}/{i}".encode()).digest():
            out.append(alphabet[b % len(alphabet)])
        i += 1
    return "".join(out[:n])


SALT = [""]  # the table is built twice: a fragment both builds share is part of the format, not secret


def r(alphabet: str, n: int, tag: str) -> str:
    return _rand(alphabet, n, SALT[0] + tag)


DIGITS = "0123456789"


def _k(kind: str, secret: str, context: str = "{}") -> None:
    KINDS[kind] = (secret, context.format(secret))


def _table(salt: str) -> dict[str, tuple[str, str]]:
    """kind → (the secret, a line holding it as it is usually written), the random parts from ``salt``."""
    SALT[0] = salt
    KINDS.clear()
    _B64 = base64.b64encode(bytes.fromhex(r(HEX, 128, "azure"))).decode()  # 64 bytes → 88 characters
    _PEM = r(ALNUM + "+/", 64, "pem")
    _k("anthropic", "sk-" + "ant-api03-" + r(ALNUM + "-_", 93, "ant") + "AA", "ANTHROPIC_API_KEY={}")
    _k("openai", "sk-" + "proj-" + r(ALNUM + "-_", 74, "oai") + "T3Blbk" + "FJ" + r(ALNUM, 20, "oai2"), "key: {}")
    _k("aws-access-key-id", "AKIA" + r(UPPER, 16, "akia"), "aws_access_key_id = {}")
    _k("aws-secret-key", r(ALNUM + "/+", 40, "awss"), "aws_secret_access_key = {}")
    _k("github-pat-classic", "ghp" + "_" + r(ALNUM, 36, "ghp"), "git clone https://x:{}@github.com/o/r")
    _k("github-pat-fine", "github" + "_pat_" + r(ALNUM, 22, "ghf") + "_" + r(ALNUM, 59, "ghf2"), "GH_TOKEN={}")
    _k("github-oauth", "gho" + "_" + r(ALNUM, 36, "gho"), "token {}")
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
    _bare_kinds()
    _command_lines()
    return dict(KINDS)


def _bare_kinds() -> None:
    """Issue 29: kinds pasted without a NAME= (a prefix or a shape is all there is), account ids."""
    b62, tok = ALNUM, ALNUM + "-_"
    _k("sshpass", "Ss9" + r(b62, 13, "sshpass") + "!x", "sshpass -p '{}' ssh deploy@10.0.0.5 uptime")
    _k("tailscale", "tskey-auth-k" + r(b62, 11, "ts1") + "CNTRL-" + r(b62, 34, "ts2"), "the auth key for the node: {}")
    _k("mailgun", "key-" + r(HEX, 32, "mailgun"), "here is the sending key {} for the domain")
    _k("discord-bot", "MT" + r(b62, 24, "dc1") + "." + r(tok, 6, "dc2") + "." + r(tok, 38, "dc3"), "client.run('{}')")
    _k("notion-secret", "secret" + "_" + r(b62, 43, "notion"), "use {} for the Notion API")
    _k("supabase", "sbp" + "_" + r(HEX, 40, "supabase"), "supabase link --project-ref abc {}")
    _k("newrelic-user", "NRAK-" + r(UPPER + "01", 27, "nrak"), "New Relic user key {}")
    _k("figma", "figd" + "_" + r(tok, 40, "figma"), "X-Figma-Token: {}")
    _k("mapbox-secret", "sk.eyJ1Ijoi" + r(b62, 48, "mb1") + "." + r(tok, 22, "mb2"), "mapbox token {}")
    _k("twilio-sid", "AC" + r(HEX, 32, "twsid"), "calls are billed to {} now")
    _k("aws-account-arn", r(DIGITS, 12, "awsacct"), "assumed arn:aws:iam::{}:role/deploy")
    _k("mailgun-pub", "pubkey-" + r(HEX, 32, "mgpub"), "public validation key {}")
    _k("newrelic-browser", "NRJS-" + r(HEX, 19, "nrjs"), "browser agent {}")
    _k("newrelic-insert", "NRII-" + r(tok, 32, "nrii"), "insights insert {}")
    _k("dropbox-short", "sl." + r(tok, 138, "dbx"), "dropbox {}")
    _k("typeform", "tfp" + "_" + r(tok, 59, "tf"), "typeform {}")
    _k("plaid", "access-sandbox-" + "-".join(r(HEX, n, f"pl{n}{i}") for i, n in enumerate((8, 4, 4, 4, 12))),
       "plaid item {}")
    _k("sonarqube", "squ" + "_" + r(HEX, 40, "sonar"), "sonar-scanner -Dsonar.token={}")
    _k("yandex", "AQVN" + r(tok, 36, "yandex"), "yc key {}")
    _k("lob", "test" + "_" + r(HEX, 35, "lob"), "lob {}")
    _k("twitter-bearer", "A" * 22 + r(b62, 90, "twb"), "twitter bearer {}")
    _k("groq", "gsk" + "_" + r(b62, 52, "groq"), "groq {}")
    _k("replicate", "r8" + "_" + r(b62, 37, "r8"), "replicate {}")
    _k("xai", "xai-" + r(b62, 80, "xai"), "grok {}")
    _k("google-oauth-secret", "GOCSPX-" + r(tok, 28, "gocspx"), '"client_id": "x.apps.googleusercontent.com", "cs": "{}"')
    _k("google-oauth-access", "ya29." + r(tok, 120, "ya29"), "gcloud printed {}")
    _k("dockerhub", "dckr" + "_pat_" + r(tok, 27, "dckr"), "docker hub {}")
    _k("stripe-webhook", "whsec" + "_" + r(b62, 32, "whsec"), "endpoint secret {}")
    _k("langsmith", "lsv2" + "_pt_" + r(HEX, 32, "ls1") + "_" + r(HEX, 10, "ls2"), "langsmith {}")
    _k("pinecone", "pcsk" + "_" + r(b62, 6, "pc1") + "_" + r(b62, 60, "pc2"), "pinecone {}")
    _k("circleci", "CCIPAT" + "_" + r(b62, 22, "cci1") + "_" + r(HEX, 40, "cci2"), "circleci {}")
    _k("buildkite", "bkua" + "_" + r(HEX, 40, "bk"), "buildkite {}")
    _k("sentry-user", "sntryu" + "_" + r(HEX, 64, "sentry"), "sentry-cli login --auth-token {}")
    _k("perplexity", "pplx-" + r(b62, 48, "pplx"), "perplexity {}")
    _k("prefect", "pnu" + "_" + r(b62, 36, "prefect"), "prefect cloud login -k {}")
    _k("readme", "rdme" + "_" + r(LOWER, 70, "rdme"), "readme {}")
    _k("sendinblue", "xkeysib-" + r(HEX, 64, "sib1") + "-" + r(b62, 16, "sib2"), "brevo {}")
    _k("dynatrace", "dt0c01." + r(UPPER, 24, "dt1") + "." + r(UPPER, 64, "dt2"), "dynatrace {}")
    _k("flyio", "fo1" + "_" + r(tok, 43, "fly"), "fly {}")
    _k("easypost", "EZAK" + r(b62, 54, "ezak"), "easypost {}")
    _k("grafana-cloud", "glc" + "_" + r(b62, 40, "glc"), "grafana cloud {}")
    _k("atlassian", "ATATT3" + r(tok, 186, "atl"), "jira {}")
    _k("defined-networking", "dnkey-" + r(LOWER, 26, "dn1") + "-" + r(LOWER, 52, "dn2"), "nebula {}")
    _k("dropbox-long", r(b62, 11, "dbl1") + "A" * 10 + r(tok, 43, "dbl2"), "dropbox long-lived {}")
    _k("gocardless", "live" + "_" + r(tok, 40, "gocardless"), "gocardless {}")
    _k("mailgun-signing", r("abcdefgh0123456789", 32, "mgs1") + "-" + r("abcdefgh0123456789", 8, "mgs2") + "-"
       + r("abcdefgh0123456789", 8, "mgs3"), "webhook signing {}")
    _k("yandex-iam", "t1." + r(tok, 40, "yt1") + "." + r(tok, 86, "yt2"), "yc iam {}")
    _k("airtable-pat", "pat" + r(b62, 14, "at1") + "." + r(HEX, 64, "at2"), "airtable {}")
    _k("facebook-token", r(DIGITS, 15, "fb1") + "|" + r(tok, 32, "fb2"), "graph api {}")
    _k("newrelic-admin", "NRAA-" + r(HEX, 27, "nraa"), "New Relic admin key {}")
    _k("supabase-secret", "sb" + "_secret_" + r(tok, 32, "sbs"), "supabase {}")
    _k("netlify", "nfp" + "_" + r(b62, 40, "nfp"), "netlify {}")
    _k("render", "rnd" + "_" + r(b62, 32, "rnd"), "render {}")
    _k("deno", "ddp" + "_" + r(b62, 36, "deno"), "deno deploy {}")
    _k("firebase", "AAAA" + r(tok, 7, "fcm1") + ":APA91b" + r(tok, 134, "fcm2"), "fcm server key {}")


def _command_lines() -> None:
    """Passwords given on command lines and in URLs: secret only by where they stand."""
    b62 = ALNUM
    _k("mysql-p-space", "Ms4" + r(b62, 12, "mysqlsp"), "mysql -h db -u app -p {} shop")
    _k("mysqldump-long", "Md7" + r(b62, 12, "mysqldump"), "mysqldump --password={} shop > shop.sql")
    _k("pgpassword", "Pg3" + r(b62, 12, "pgpw"), "PGPASSWORD={} psql -h db -U app shop")
    _k("curl-user-quoted", "Cq2" + r(b62, 12, "curlq"), "curl --user 'ci:{}' https://ci.internal/api")
    _k("url-password-https", "Uh5" + r(b62, 12, "urlh"), "git clone https://deploy:{}@git.internal/app.git")
    _k("redis-cli", "Rc8" + r(b62, 12, "redis"), "redis-cli -h cache -a {} ping")
    _k("docker-login", "Dl6" + r(b62, 12, "dlogin"), "docker login -u bot -p {} registry.internal")
    _k("ldapsearch", "Ld1" + r(b62, 12, "ldap"), "ldapsearch -x -D cn=admin,dc=x -w {} -b dc=x")
    _k("smbclient", "Sm9" + r(b62, 12, "smb"), "smbclient //fs/share -U admin%{}")
    _k("openssl-pass", "Op4" + r(b62, 12, "ossl"), "openssl rsa -in key.pem -passin pass:{}")
    _k("htpasswd", "Ht7" + r(b62, 12, "htp"), "htpasswd -b .htpasswd admin {}")
    _k("sshpass-bare", "Sb2" + r(b62, 12, "sshpb"), "sshpass -p{} scp build.tgz host:")
    _k("cli-password-flag", "Cp5" + r(b62, 12, "clipw"), "vault login -method=userpass username=me --password {}")


KINDS: dict[str, tuple[str, str]] = {}
_AGAIN = _table("again/")
KINDS.update(_table(""))

# Kinds secret only by what surrounds them (a password after -p, a value after AccountKey=…): the
# others are also planted bare, in prose.
CONTEXT_ONLY = {"aws-secret-key", "private-key", "url-password", "connection-string", "env-password", "json-api-key",
                "yaml-password", "bearer", "basic-auth", "mysql-password", "azure-storage", "curl-user", "discord",
                "sshpass", "aws-account-arn", "mysql-p-space", "mysqldump-long", "pgpassword", "curl-user-quoted",
                "url-password-https", "redis-cli", "docker-login", "ldapsearch", "smbclient", "openssl-pass",
                "htpasswd", "sshpass-bare", "cli-password-flag"}


def format_fragments(kind: str, n: int = 8) -> set[str]:
    """The n-character pieces of a kind's secret that any secret of its kind holds (a prefix such as
    ``sk-ant-api03-``): built again from another salt, what both share is format, not secret."""
    a, b = KINDS[kind][0], _AGAIN[kind][0]
    return {a[i:i + n] for i in range(len(a) - n + 1)} & {b[i:i + n] for i in range(len(b) - n + 1)}


def fragments(kind: str, n: int = 8) -> set[str]:
    """The distinctive n-character pieces of a kind's secret: each must be absent from an export."""
    s = KINDS[kind][0]
    return {s[i:i + n] for i in range(len(s) - n + 1)} - format_fragments(kind, n)


def planted_lines() -> str:
    """Every context line, one after another (each secret once)."""
    return "\n".join(f"{kind}: {context}" for kind, (_secret, context) in KINDS.items())
