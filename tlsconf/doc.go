// Package tlsconf turns ZooKeeper 3.8's ssl.* settings into crypto/tls
// configurations, and keeps the key material they name current.
//
// ZooKeeper reads one set of keys per TLS "side": ssl.* for the secure
// client port and ssl.quorum.* for server-to-server links. Each side names
// a key store (the certificate and private key this server presents) and a
// trust store (the certificates it accepts peers against), each a file in
// PEM, PKCS#12 or JKS form, plus the protocol versions, cipher suites,
// client-certificate policy and hostname checks. [FromProps] reads those
// keys into a [Config]; [Load] reads the stores into a [Source], whose
// [Source.ServerConfig] and [Source.ClientConfig] hand out *tls.Config
// values that always use the newest material: a Source re-reads its files
// when they change, so a renewed certificate is served without a restart.
//
// Behaviour follows ZooKeeper 3.8's X509Util, ZKTrustManager and
// KeyStoreFileType where zoo.cfg users can observe it:
//
//   - ssl.protocol defaults to TLSv1.2 and ssl.enabledProtocols defaults to
//     ssl.protocol alone, so an unconfigured side speaks TLS 1.2 only.
//   - ssl.clientAuth defaults to need.
//   - An empty trust store location means the platform's default CAs (the
//     JVM's cacerts there, the system pool here).
//   - A PEM key store is one file holding the private key and its
//     certificate chain; an encrypted PKCS#8 key is opened with the key
//     store password.
//   - When ssl.*.type is empty the type comes from the file name: .jks,
//     .pem, .p12 (and .pfx here).
//   - Hostname verification of a connecting peer's certificate against its
//     address happens only on the quorum side in 3.8; the client port never
//     checks clients' addresses (3.9.4's clientHostnameVerification key can
//     turn it on, and is read too).
//
// Settings that this package cannot honour are refused with an error rather
// than ignored, because a server that silently skipped a security check
// would look safer than it is: ssl.crl=true, ssl.ocsp=true, BCFKS stores
// and ssl.context.supplier.class all fail [FromProps] or [Load] with
// [ErrUnsupported].
package tlsconf
