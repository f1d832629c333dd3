#!/usr/bin/python3
"""Authlib's OAuth1Session against Latchkey: three-legged, or the PIN flow with CALLBACK oob.

Usage: AUTHLIB_INSECURE_TRANSPORT=1 authlib_oauth1.py LATCHKEY_URL CONSUMER_KEY CONSUMER_SECRET CALLBACK
(Authlib refuses an http:// URL for OAuth 1.0a unless AUTHLIB_INSECURE_TRANSPORT is set: on loopback only.)
Prints "AUTHORIZE <url>"; open it, allow, then type the URL you were sent to (or the PIN) and Enter.
Prints "SCREEN_NAME <name>" from verify_credentials, signed with the access token.
"""
import sys

from authlib.integrations.requests_client import OAuth1Session


def main(base_url, consumer_key, consumer_secret, callback):
    base_url = base_url.rstrip("/")
    session = OAuth1Session(consumer_key, consumer_secret, redirect_uri=callback)
    session.fetch_request_token(base_url + "/oauth/request_token")
    print("AUTHORIZE " + session.create_authorization_url(base_url + "/oauth/authorize"), flush=True)
    typed = sys.stdin.readline().strip()
    if callback == "oob":
        session.fetch_access_token(base_url + "/oauth/access_token", verifier=typed)
    else:
        session.parse_authorization_response(typed)
        session.fetch_access_token(base_url + "/oauth/access_token")
    me = session.get(base_url + "/1.1/account/verify_credentials.json", timeout=30)
    me.raise_for_status()
    print("SCREEN_NAME " + me.json()["screen_name"], flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:5])
