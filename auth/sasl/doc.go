// Package sasl is the server side of the SASL exchange ZooKeeper clients run
// at the SASL opcode, with the DIGEST-MD5 mechanism (RFC 2831) as Apache
// ZooKeeper 3.8 runs it: the JDK's DigestMD5Server created with protocol
// "zookeeper", server name "zk-sasl-md5" and no properties, answering to
// ZooKeeper's SaslServerCallbackHandler.
//
// The exchange has two steps. The client opens with an empty token and the
// server answers with a challenge such as
//
//	realm="zk-sasl-md5",nonce="…40 base64 characters…",charset=utf-8,algorithm=md5-sess
//
// with no qop directive, so clients assume qop=auth. The client then sends
// its digest-response; the server checks it and, if it proves the user's
// password, answers rspauth=… and the exchange is done. The server offers
// no security layer (no auth-int, no auth-conf).
//
// What the JDK server checks, and so this package checks:
//
//   - the token is at most 4096 bytes;
//   - directive names are case-insensitive, unknown ones are ignored, and a
//     known directive given twice is an error;
//   - charset, when sent, is exactly "utf-8"; maxbuf, when sent, is a
//     32-bit decimal integer;
//   - username is not empty (the JDK's NameCallback throws);
//   - username, nonce (ours, byte for byte), cnonce, response and
//     digest-uri are present; realm is present and is ours (the JDK compares
//     an absent realm, taken as "", against its realm list and fails);
//   - qop is absent or "auth";
//   - digest-uri equals Protocol "/" ServerName, ignoring case;
//   - response is the lowercase hex the server computes with md5-sess,
//     nc 00000001 and the client's own digest-uri.
//
// The username, the realm and the password are hashed one by one: each as
// ISO-8859-1 bytes when all its characters fit, as UTF-8 otherwise; and so
// whether or not the client sent charset=utf-8 (the JDK server always runs
// with UTF-8 on). A user "zoë" with password "пароль" hashes "zoë" and
// the UTF-8 of the password.
// An authzid is hashed as the raw bytes the client sent.
//
// Deliberate differences from ZooKeeper 3.8, none of which a correct
// client or a plain user name meets:
//
//   - nc is checked (it must be hexadecimal 1, and sent at most once). The
//     JDK's directive table names it "nonce-count", so it never reads the
//     "nc" that clients send and always hashes 00000001; "nonce-count" is
//     read and checked as the JDK does.
//   - The authorization id is always the authenticated username.
//     ZooKeeper's callback handler passes the username through Kerberos
//     name rules; for a name without "@" or "/" that gives the name back,
//     but for "bob@REALM" whose realm is not the default one the rules
//     fail and the JDK falls back to the authzid the client sent.
//   - An unknown user fails. ZooKeeper's callback handler keeps the last
//     known user name in a field shared by all connections and may hand out
//     that user's password for an unknown name.
//   - A username or realm that is not valid UTF-8 fails; the JDK decodes
//     it with replacement characters first.
//   - The first token, which the JDK ignores, is ignored here too; but an
//     over-long first token fails the exchange, where the JDK lets it be
//     retried.
package sasl
