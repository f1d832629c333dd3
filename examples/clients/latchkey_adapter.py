"""A requests transport adapter that sends what a library addresses to X's hosts to Latchkey instead.

Mount it on the requests Session a library uses (tweepy.Client's .session, OAuth2UserHandler itself):
    session.mount("https://api.twitter.com/", LatchkeyAdapter("http://127.0.0.1:8080"))
Only for requests whose URL is not signed (OAuth 2.0 bearer calls and token requests): an OAuth 1.0a
signature covers the URL, so OAuth 1.0a requests must be made to Latchkey's URL in the first place.
"""
from urllib.parse import urlsplit

from requests.adapters import HTTPAdapter


class LatchkeyAdapter(HTTPAdapter):
    def __init__(self, base_url, **kwargs):
        super().__init__(**kwargs)
        self.base_url = base_url.rstrip("/")

    def send(self, request, **kwargs):
        parts = urlsplit(request.url)
        request.url = self.base_url + parts.path + ("?" + parts.query if parts.query else "")
        return super().send(request, **kwargs)
