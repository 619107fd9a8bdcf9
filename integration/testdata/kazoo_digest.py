"""Logs kazoo in with SASL DIGEST-MD5 and reports what the server made of it.

usage: kazoo_digest.py HOST:PORT USER PASSWORD

Prints one line:
  "ok" when the session started and the client can read /sasl-only (an
       ACL of sasl:USER) and create a child under it;
  "noauth" when the session started but /sasl-only refused the read;
  "authfailed" when the login failed (ZooKeeper 3.8 answers the SASL
       token with AUTH_FAILED and closes the connection). kazoo shows it
       in one of two ways, depending on when that answer arrives: start
       returns and the first request raises AuthFailedError, or, when it
       arrives while start still waits, start gives up with a
       KazooTimeoutError after kazoo logged "AUTH_FAILED closing";
  "error <repr>" for anything else.
Used by TestSASL_Kazoo* in sasl_test.go.
"""
import logging
import sys

from kazoo.client import KazooClient
from kazoo.exceptions import AuthFailedError, NoAuthError
from kazoo.handlers.threading import KazooTimeoutError


class AuthFailedSeen(logging.Handler):
    """Remembers whether kazoo's connection logged an AUTH_FAILED answer."""

    seen = False

    def emit(self, record):
        if record.getMessage().startswith("AUTH_FAILED closing"):
            AuthFailedSeen.seen = True


logging.getLogger("kazoo").addHandler(AuthFailedSeen())

addr, user, password = sys.argv[1], sys.argv[2], sys.argv[3]
zk = KazooClient(hosts=addr, timeout=10.0, connection_retry={"max_tries": 0},
                 sasl_options={"mechanism": "DIGEST-MD5", "username": user, "password": password})
try:
    zk.start(timeout=15)
except AuthFailedError:
    print("authfailed")
    sys.exit(0)
except KazooTimeoutError:
    if not AuthFailedSeen.seen:
        raise
    print("authfailed")
    sys.exit(0)
try:
    zk.get("/sasl-only")
    zk.create("/sasl-only/by-" + user)
    print("ok")
except NoAuthError:
    print("noauth")
except AuthFailedError:
    print("authfailed")
except Exception as err:
    print("error %r" % err)
finally:
    zk.stop()
    zk.close()
