"""Connects kazoo over TLS with a client certificate and reports what the
server made of it.

usage: kazoo_tls.py HOST:PORT CA CERTFILE KEYFILE

Prints one line: "ok" when the session started and /x509-only (an ACL for
the certificate's subject) can be read, "noauth" when the read is refused,
"error <repr>" otherwise. Used by TestDiffSecurity_TLS.
"""
import sys

from kazoo.client import KazooClient
from kazoo.exceptions import NoAuthError

addr, ca, certfile, keyfile = sys.argv[1:5]
zk = KazooClient(hosts=addr, timeout=10.0, connection_retry={"max_tries": 0},
                 use_ssl=True, verify_certs=True, ca=ca, certfile=certfile, keyfile=keyfile)
try:
    zk.start(timeout=15)
    zk.get("/x509-only")
    print("ok")
except NoAuthError:
    print("noauth")
except Exception as err:
    print("error %r" % err)
finally:
    zk.stop()
    zk.close()
