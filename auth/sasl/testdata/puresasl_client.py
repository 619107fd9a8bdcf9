"""Drive pure-sasl's DIGEST-MD5 client (used by kazoo) for the Go tests in
auth/sasl, with kazoo's arguments: host "zk-sasl-md5", service "zookeeper".

Run with /usr/bin/python3 (Debian's python3-pure-sasl). It reads commands on
stdin and answers one line each; every string is hex-encoded UTF-8:

  NEW <user> <password> <authzid or ->  ->  R <first token>
  C <challenge>                          ->  R <response> | OK | ERR <message>

It exits with status 3 when puresasl cannot be imported.
"""
import sys

try:
    from puresasl.client import SASLClient
except ImportError as e:
    print("ERR import puresasl: %s" % e, flush=True)
    sys.exit(3)


def text(h):
    return bytes.fromhex(h).decode("utf-8")


def reply(s):
    print(s, flush=True)


def step(client, fields):
    if fields[0] == "NEW":
        authzid = None if fields[3] == "-" else text(fields[3])
        client = SASLClient(host="zk-sasl-md5", service="zookeeper",
                            mechanism="DIGEST-MD5", authorization_id=authzid,
                            username=text(fields[1]), password=text(fields[2]))
        first = client.process() or b""
        reply("R " + first.hex())
        return client
    if fields[0] == "C":
        resp = client.process(bytes.fromhex(fields[1]))
        reply("OK" if client.complete else "R " + (resp or b"").hex())
        return client
    reply("ERR unknown command")
    return client


def main():
    client = None
    for line in sys.stdin:
        try:
            client = step(client, line.rstrip("\n").split(" "))
        except Exception as e:  # report every client-side failure
            reply("ERR %s: %s" % (type(e).__name__, str(e).replace("\n", " ")))


if __name__ == "__main__":
    main()
