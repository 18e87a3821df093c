"""Secrets known by their shape alone, found without a ``NAME=`` beside them (issue 29, point 3).

Many of gitleaks' rules (share/gitleaks_rules.json) want a keyword context such as
``mailgun_key = key-…``: pasted bare into a prompt or printed by a tool, the same key passes. Each
rule here is the prefix-only variant of such a rule (named as gitleaks names it, so the counts
agree) or a vendor format gitleaks lacks. A rule goes here only when its literal prefix (or a
shape as telling: ``<32 hex>-us12``, ``<id>:AA…``) makes a match in ordinary text unlikely;
fixed-length ones end at a word boundary so a longer word of the same start is left alone, and
an entropy floor keeps ``key-0000…`` and identifiers out. Those gitleaks kinds whose secret has no
prefix (Okta ``00…``, Sumo Logic ``su…``, Beamer ``b_…``, Yandex ``YC…``, the plain hex and
base62 keys) still need their keyword context.

All patterns are RE2 syntax (share/secrets.py runs them beside gitleaks' own); the secret is the
first non-empty group, else the whole match. Account ids (a Twilio Account SID, the account of an
AWS ARN) are redacted too: docs/security.md promises account ids stay out of a shared file.
"""

from __future__ import annotations

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

# (kind, RE2 pattern, lower-case keywords that wake it — () for always —, entropy floor)
BARE_RULES: list[tuple[str, str, tuple[str, ...], float]] = [
    # The kinds issue 29 found passing.
    ("tailscale-key", r"\btskey-[a-z]{3,8}-[A-Za-z0-9]{4,}-[A-Za-z0-9]{16,}", ("tskey-",), 3.0),
    ("mailgun-private-api-token", r"\bkey-[a-f0-9]{32}\b", ("key-",), 3.0),
    ("mailgun-pub-key", r"\bpubkey-[a-f0-9]{32}\b", ("pubkey-",), 3.0),
    ("mailgun-signing-key", r"\b[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}\b", ("-",), 3.0),
    ("discord-bot-token", r"\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}", (".",), 4.3),
    ("telegram-bot-api-token", r"\b[0-9]{5,16}:A[A-Za-z0-9_-]{34}", (":a",), 3.0),
    ("notion-api-token", r"\bsecret_[A-Za-z0-9]{43}\b", ("secret_",), 3.5),
    ("supabase-token", r"\bsbp_(?:v0_)?[a-f0-9]{40}\b", ("sbp_",), 3.0),
    ("supabase-token", r"\bsb_secret_[A-Za-z0-9_-]{20,}", ("sb_secret_",), 3.0),
    ("new-relic-user-api-key", r"\bNRAK-[A-Z0-9]{27}\b", ("nrak-",), 3.0),
    ("new-relic-admin-api-key", r"\bNRAA-[a-f0-9]{27}\b", ("nraa-",), 3.0),
    ("new-relic-browser-api-token", r"\bNRJS-[a-f0-9]{19}\b", ("nrjs-",), 3.0),
    ("new-relic-insert-key", r"\bNRII-[A-Za-z0-9_-]{32}", ("nrii-",), 3.0),
    ("figma-token", r"\bfig[dh]_[A-Za-z0-9_-]{40,}", ("figd_", "figh_"), 3.0),
    ("mapbox-api-token", r"\b[pst]k\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}", ("k.eyj",), 3.0),
    # Account ids.
    ("twilio-account-sid", r"\bAC[a-f0-9]{32}\b", ("ac",), 3.0),
    ("aws-account-id", r"\barn:aws[a-z-]*:[a-z0-9-]*:[a-z0-9-]*:([0-9]{12}):", ("arn:aws",), 0.0),
    # Prefix-only variants of gitleaks' keyword-context rules.
    ("defined-networking-api-token", r"(?i)\bdnkey-[a-z0-9=_-]{26}-[a-z0-9=_-]{52}", ("dnkey-",), 3.0),
    ("dropbox-short-lived-api-token", r"\bsl\.(?:u\.)?[A-Za-z0-9_=-]{130,}", ("sl.",), 3.5),
    ("dropbox-long-lived-api-token", r"\b[A-Za-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_=-]{43}", ("aaaaaaaaaa",), 3.0),
    ("gocardless-api-token", r"\blive_[A-Za-z0-9_=-]{40}\b", ("live_",), 4.0),
    ("lob-api-key", r"\b(?:live|test)_(?:pub_)?[a-f0-9]{31,35}\b", ("live_", "test_"), 3.0),
    ("mailchimp-api-key", r"\b[a-f0-9]{32}-us[0-9]{1,2}\b", ("-us",), 3.0),
    ("plaid-api-token", r"\baccess-(?:sandbox|development|production)-" + UUID + r"\b", ("access-",), 0.0),
    ("sonar-api-token", r"\bsq[upa]_[a-f0-9]{40}\b", ("squ_", "sqp_", "sqa_"), 3.0),
    ("twitter-bearer-token", r"\bA{22}[A-Za-z0-9%]{80,100}", ("a" * 22,), 3.0),
    ("typeform-api-token", r"\btfp_[A-Za-z0-9_.=-]{59}", ("tfp_",), 3.0),
    ("yandex-api-key", r"\bAQVN[A-Za-z0-9_-]{35,38}", ("aqvn",), 3.0),
    ("yandex-access-token", r"\bt1\.[A-Za-z0-9_-]+=*\.[A-Za-z0-9_-]{86}=*", ("t1.",), 3.0),
    ("airtable-personnal-access-token", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b", ("pat",), 3.0),
    ("facebook-access-token", r"\b[0-9]{15,16}(?:\||%7[Cc])[0-9A-Za-z_-]{27,40}", ("|", "%7c"), 3.0),
    # Vendor formats gitleaks does not have.
    ("groq-api-key", r"\bgsk_[A-Za-z0-9]{48,}", ("gsk_",), 3.0),
    ("replicate-api-token", r"\br8_[A-Za-z0-9]{37}\b", ("r8_",), 3.0),
    ("xai-api-key", r"\bxai-[A-Za-z0-9]{60,}", ("xai-",), 3.0),
    ("google-oauth-client-secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}", ("gocspx-",), 3.0),
    ("google-oauth-access-token", r"\bya29\.[A-Za-z0-9_-]{30,}", ("ya29.",), 3.0),
    ("dockerhub-token", r"\bdckr_pat_[A-Za-z0-9_-]{27,}", ("dckr_pat_",), 3.0),
    ("buildkite-token", r"\bbkua_[a-f0-9]{40}\b", ("bkua_",), 3.0),
    ("circleci-token", r"\bCCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}\b", ("ccipat_",), 3.0),
    ("netlify-token", r"\bnfp_[A-Za-z0-9]{36,}", ("nfp_",), 3.0),
    ("render-api-key", r"\brnd_[A-Za-z0-9]{32}\b", ("rnd_",), 3.0),
    ("deno-token", r"\bdd[pw]_[A-Za-z0-9]{36}\b", ("ddp_", "ddw_"), 3.0),
    ("stripe-webhook-secret", r"\bwhsec_[A-Za-z0-9+/=]{32,}", ("whsec_",), 3.0),
    ("pinecone-api-key", r"\bpcsk_[A-Za-z0-9_]{50,}", ("pcsk_",), 3.0),
    ("langsmith-api-key", r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b", ("lsv2_",), 3.0),
    ("firebase-server-key", r"\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}", ("apa91b",), 3.0),
]
