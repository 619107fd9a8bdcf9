"""Connects kazoo with SASL DIGEST-MD5 to a server that offers no SASL and
reports how the handshake ends.

usage: kazoo_sasl.py HOST:PORT DEADLINE_SECONDS

Prints one line "lost after S s, N sasl packets" and exits 0 once kazoo
gives the connection up (state LOST), or "still looping after S s, N sasl
packets" and exits 1 if it has not by the deadline. Used by
TestHostileAuth_KazooSASLFailsInsteadOfLooping.
"""
import sys
import threading
import time

from kazoo.client import KazooClient
from kazoo.protocol import connection

addr, deadline = sys.argv[1], float(sys.argv[2])
sent = [0]
submit = connection.ConnectionHandler._submit


def counting_submit(self, request, timeout, xid=None):
    if type(request).__name__ == "SASL":
        sent[0] += 1
    return submit(self, request, timeout, xid)


connection.ConnectionHandler._submit = counting_submit
lost = threading.Event()
start = time.time()
zk = KazooClient(hosts=addr, timeout=4.0, connection_retry={"max_tries": 0},
                 sasl_options={"mechanism": "DIGEST-MD5", "username": "u", "password": "p"})
zk.add_listener(lambda state: lost.set() if state == "LOST" else None)
try:
    zk.start(timeout=deadline)
except Exception as err:  # a refused connection also ends the handshake
    print("start failed: %r" % err)
    lost.set()
ended = lost.wait(deadline)
took = time.time() - start
print("%s after %.1f s, %d sasl packets" % ("lost" if ended else "still looping", took, sent[0]))
sys.stdout.flush()
zk.stop()
zk.close()
sys.exit(0 if ended else 1)
