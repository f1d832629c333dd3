#!/usr/bin/python3
"""tweepy's OAuth1UserHandler against Latchkey: three-legged, or the PIN flow with CALLBACK oob.

Usage: tweepy_oauth1.py LATCHKEY_URL CONSUMER_KEY CONSUMER_SECRET CALLBACK
Prints "AUTHORIZE <url>"; open it, allow, then type the URL you were sent to (or the PIN) and Enter.
Prints "SCREEN_NAME <name>" from the access token's answer and from verify_credentials.
"""
import sys

import requests
import tweepy


class LatchkeyOAuth1UserHandler(tweepy.OAuth1UserHandler):
    """tweepy writes https://api.twitter.com/oauth/ in; its one method for that URL names Latchkey instead."""

    def __init__(self, base_url, *args, **kwargs):
        self.base_url = base_url.rstrip("/")
        super().__init__(*args, **kwargs)

    def _get_oauth_url(self, endpoint):
        return f"{self.base_url}/oauth/{endpoint}"


def main(base_url, consumer_key, consumer_secret, callback):
    auth = LatchkeyOAuth1UserHandler(base_url, consumer_key, consumer_secret, callback=callback)
    print("AUTHORIZE " + auth.get_authorization_url(), flush=True)
    typed = sys.stdin.readline().strip()
    verifier = typed if callback == "oob" else auth.oauth.parse_authorization_response(typed)["oauth_verifier"]
    auth.get_access_token(verifier)
    # tweepy.API and tweepy.Client build https://api.twitter.com URLs and sign them: call Latchkey
    # with requests and the handler's own signer (apply_auth) instead.
    me = requests.get(f"{auth.base_url}/1.1/account/verify_credentials.json", auth=auth.apply_auth(), timeout=30)
    me.raise_for_status()
    print("SCREEN_NAME " + me.json()["screen_name"], flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:5])
