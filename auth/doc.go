// Package auth holds zkraft's authentication providers beyond ZooKeeper's
// built-in ip and digest schemes: what an id of each scheme looks like,
// which ACL ids it matches, and how a connection earns one.
//
//   - x509: a TLS client certificate's subject, written as Java's
//     X500Principal.getName() writes it (RFC 2253), so ACLs written for
//     Apache ZooKeeper match byte for byte.
//   - sasl: the authorization id of a completed SASL exchange (see the
//     auth/sasl package for the mechanisms and auth/jaas for their
//     configuration).
//
// The server asks this package at the auth and SASL opcodes and hands the
// schemes to datatree for ACL checks; datatree itself stays free of
// authentication.
package auth
