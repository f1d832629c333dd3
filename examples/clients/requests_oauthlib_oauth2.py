#!/usr/bin/python3
"""requests-oauthlib's OAuth2Session (authorization code with PKCE, S256) against Latchkey.

Usage: OAUTHLIB_INSECURE_TRANSPORT=1 requests_oauthlib_oauth2.py LATCHKEY_URL CLIENT_ID CLIENT_SECRET REDIRECT_URI
(oauthlib refuses an http:// token URL unless OAUTHLIB_INSECURE_TRANSPORT is set: on loopback only.)
Prints "AUTHORIZE <url>"; open it, allow, then type the URL you were sent to and Enter.
Prints "USERNAME <name>" from /2/users/me with the user's access token.
"""
import base64
import hashlib
import secrets
import sys

from requests.auth import HTTPBasicAuth
from requests_oauthlib import OAuth2Session


def main(base_url, client_id, client_secret, redirect_uri):
    base_url = base_url.rstrip("/")
    # requests-oauthlib before 1.4 (Debian's is 1.3) has no pkce= option: the challenge goes as extra parameters.
    verifier = secrets.token_urlsafe(64)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode("ascii")
    session = OAuth2Session(client_id, redirect_uri=redirect_uri, scope=["tweet.read", "users.read", "offline.access"])
    url, _state = session.authorization_url(base_url + "/i/oauth2/authorize", code_challenge=challenge, code_challenge_method="S256")
    print("AUTHORIZE " + url, flush=True)
    session.fetch_token(
        base_url + "/2/oauth2/token",
        authorization_response=sys.stdin.readline().strip(),
        auth=HTTPBasicAuth(client_id, client_secret),
        code_verifier=verifier,
    )
    me = session.get(base_url + "/2/users/me", timeout=30)
    me.raise_for_status()
    print("USERNAME " + me.json()["data"]["username"], flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:5])
