// Package sasl is the server side of the SASL exchange ZooKeeper clients run
// at the SASL opcode, with the DIGEST-MD5 mechanism (RFC 2831) as Apache
// ZooKeeper 3.8 runs it: the JDK's DigestMD5Server created with protocol
// "zookeeper", server name "zk-sasl-md5" and no properties, answering to
// ZooKeeper's SaslServerCallbackHandler; and with the GSSAPI mechanism
// (Kerberos v5, RFC 4752 over RFC 4121), described at the end.
//
// # DIGEST-MD5
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
//
// # GSSAPI
//
// GSSAPI is the mechanism as ZooKeeper 3.8 runs the JDK's GssKrb5Server
// (no properties, so no security layer and a 65536-byte buffer) for the
// JDK's GssKrb5Client as ZooKeeper's Java client creates it
// (Sasl.createSaslClient with "GSSAPI", protocol "zookeeper", the server's
// host name and no properties, inside Subject.doAs of the JAAS login).
// Kerberos messages, keytabs and checksums come from
// github.com/jcmturner/gokrb5/v8; the GSS-API token framing, the wrap
// tokens and the SASL steps are here.
//
// The client's first token is its GSS initial context token: the RFC 2743
// framing with the Kerberos OID 1.2.840.113554.1.2.2, token id 01 00 and
// an AP-REQ. The server decrypts the ticket with the keytab key of
// GSSAPI.Principal (the ticket must be for that principal), checks the
// ticket's times and the authenticator's time against MaxClockSkew (five
// minutes by default), that the authenticator's client is the ticket's,
// that its checksum is the GSS-API one (type 0x8003), and that the
// authenticator was not seen before by any connection of the same GSSAPI
// value (a replay cache kept for twice the skew). Every failure is
// ErrAuthFailed.
//
// Without mutual authentication, which is what ZooKeeper's client asks
// for (the JDK client asks for it only when a security layer or
// javax.security.sasl.server.authentication=true is requested), the
// server answers at once with the security-layer offer. With it (the
// mutual-required AP option or GSS_C_MUTUAL_FLAG) the server first sends
// an AP-REP (token id 02 00; ctime and cusec of the authenticator and the
// acceptor's sequence number, encrypted with the ticket's session key,
// key usage 12, no acceptor subkey), and the client answers with an empty
// token.
//
// The offer is an RFC 4121 Wrap token without confidentiality
// (SentByAcceptor, checksum with key usage 22) over 01 01 00 00: only "no
// security layer" and a 65536-byte buffer. Tokens are protected with the
// initiator's subkey from the authenticator when there is one, else with
// the session key; the AcceptorSubkey flag is never set. The acceptor's
// first sequence number is the one in the AP-REP, or without mutual
// authentication the initiator's (as MIT, Windows and the JDK do). The
// client must answer with an unsealed Wrap token (checksum with key usage
// 24, the initiator's sequence number from the authenticator) over the
// chosen layer, exactly 01, its buffer size and an optional authzid. The
// exchange is then done with an empty last challenge.
//
// The authorization id is the client's principal as ZooKeeper's
// SaslServerCallbackHandler makes it: the first component, then "/" and
// the host component unless RemoveHostFromPrincipal
// (kerberos.removeHostFromPrincipal), then "@" and the realm unless
// RemoveRealmFromPrincipal (kerberos.removeRealmFromPrincipal):
// "zkclient/host@REALM", "zkclient@REALM", "zkclient". An authzid sent by
// the client is ignored: ZooKeeper's handler authorizes every
// authenticated client and replaces the authzid with that name (the JDK
// client sends none unless one is passed to createSaslClient).
//
// Deliberate differences from ZooKeeper 3.8 and the JDK:
//
//   - No auth_to_local rules. ZooKeeper passes the principal through
//     Kerberos name rules; for a realm that is not the default one they
//     fail and ZooKeeper then takes the authzid the client asked for (or
//     the full principal when none). Here the id is always made from the
//     principal.
//   - Only AES keys (aes128/aes256-cts-hmac-sha1-96 and the RFC 8009
//     SHA-2 enctypes), which use RFC 4121 tokens; DES, 3DES and RC4
//     sessions, which need RFC 1964 tokens, fail.
//   - The layer answer must be an unsealed Wrap token choosing exactly
//     "no security layer"; the JDK also takes a sealed one, and a bitmask
//     with more bits set.
//   - User-to-user tickets, delegated credentials, channel bindings and
//     ticket address restrictions are not used (a ticket restricted to
//     client addresses is refused).
package sasl
