#!/usr/bin/python3
"""One request to an API behind a proxy, signed by requests-oauthlib as its documentation uses it.

Usage: forward_auth_client.py METHOD URL CONSUMER_KEY CONSUMER_SECRET TOKEN TOKEN_SECRET [FORM_JSON]

FORM_JSON, when given, is sent as an application/x-www-form-urlencoded body (which requests-oauthlib
signs). Prints one line of JSON: the status, the body and the headers of the answer.
"""
import json
import sys

from requests_oauthlib import OAuth1Session

method, url, consumer_key, consumer_secret, token, token_secret = sys.argv[1:7]
form = json.loads(sys.argv[7]) if len(sys.argv) > 7 else None
session = OAuth1Session(consumer_key, client_secret=consumer_secret, resource_owner_key=token, resource_owner_secret=token_secret)
response = session.request(method, url, data=form)
print(json.dumps({"status": response.status_code, "body": response.text, "headers": {k.lower(): v for k, v in response.headers.items()}}))
