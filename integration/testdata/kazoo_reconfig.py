"""Runs the checks of kazoo's TestReconfig (kazoo/tests/test_client.py)
against a server with reconfigEnabled and the super user super:test.

usage: kazoo_reconfig.py HOST:PORT

Prints one line per check ("ok NAME" or "FAIL NAME: why") and exits 1 if
any failed. Used by TestHostileAuth_KazooReconfigChecks.
"""
import socket
import sys

from kazoo.client import KazooClient
from kazoo.exceptions import BadArgumentsError, BadVersionError, NoAuthError

addr = sys.argv[1]
failed = False


def check(name, fn):
    global failed
    try:
        fn()
        print("ok " + name)
    except Exception as err:  # report every check, then fail
        failed = True
        print("FAIL %s: %r" % (name, err))


def expect(exc, fn):
    try:
        fn()
    except exc:
        return
    raise AssertionError("expected " + exc.__name__)


plain = KazooClient(hosts=addr, timeout=10)
plain.start(timeout=20)
admin = KazooClient(hosts=addr, timeout=10, auth_data=[("digest", "super:test")])
admin.start(timeout=20)
observer = "server.999=0.0.0.0:1234:2345:observer;3456"

check("no super auth: NOAUTH", lambda: expect(NoAuthError, lambda: plain.reconfig(
    joining=observer, leaving=None, new_members=None)))
check("bad input: BADARGUMENTS", lambda: expect(BadArgumentsError, lambda: plain.reconfig(
    joining="some thing", leaving=None, new_members=None)))


def add_remove_observer():
    socks = []
    for _ in range(3):
        s = socket.socket()
        s.bind(("", 0))
        socks.append(s)
    p1, p2, p3 = (s.getsockname()[1] for s in socks)
    joining = "server.100=0.0.0.0:%d:%d:observer;0.0.0.0:%d" % (p1, p2, p3)
    data, _ = admin.reconfig(joining=joining, leaving=None, new_members=None)
    assert joining.encode() in data, data
    data, _ = admin.reconfig(joining=None, leaving="100", new_members=None)
    assert joining.encode() not in data, data
    version = int(data.decode().split("\n")[-1].split("=")[1], base=16)
    expect(BadVersionError, lambda: plain.reconfig(
        joining=joining, leaving=None, new_members=None, from_config=version + 1))
    for s in socks:
        s.close()


check("add and remove an observer, then a future version: BADVERSION", add_remove_observer)
for c in (plain, admin):
    c.stop()
    c.close()
sys.exit(1 if failed else 0)
