// Package digestmd5 holds the DIGEST-MD5 SASL mechanism (RFC 2831) as
// ZooKeeper runs it on the JDK: the directive lists both sides write and
// parse, the md5-sess digest both sides compute, and the client side of
// the exchange as ZooKeeper's Java client runs it.
//
// The server side, with the checks the JDK's server makes, is in
// auth/sasl, which uses ParseDirectives, QuoteValue and ResponseValue from
// here. Client is what zkcli logs in with.
//
// This package uses only the standard library and imports nothing from
// the server: a client binary can use it without pulling in the server's
// dependencies (auth/sasl also brings Kerberos).
//
// # The client's exchange
//
// ZooKeeper's Java client creates the JDK's DigestMD5Client with the
// user name as authorization id, protocol "zookeeper" and server name
// "zk-sasl-md5", and answers its callbacks with the JAAS Client
// section's username and password and the realm the server offers. The
// exchange it runs, and Client runs, is:
//
//  1. The client sends an empty token (DIGEST-MD5 has no initial
//     response).
//  2. The server answers a digest-challenge; the client answers a
//     digest-response: charset=utf-8 when the challenge has it, username,
//     the challenge's realm (left out when it names none), nonce,
//     nc=00000001, a fresh cnonce (30 random bytes in base64, as the
//     JDK's), digest-uri="zookeeper/zk-sasl-md5", maxbuf=65536, response,
//     qop=auth and authzid, in that order.
//  3. The server answers rspauth=…, which the client checks: it proves the
//     server knows the password. Nothing more is sent.
//
// The client refuses a challenge as the JDK's does: charset other than
// utf-8, algorithm missing or other than md5-sess, nonce missing, or a
// qop list without "auth" (only authentication is offered: no integrity
// or confidentiality layer). Unlike the JDK it also refuses a challenge
// naming several realms (ZooKeeper's servers name one).
package digestmd5
