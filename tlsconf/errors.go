package tlsconf

import "errors"

// Errors returned (wrapped with the key or file concerned) by this package.
// Callers can test for them with errors.Is.
var (
	// ErrBadValue reports a configuration value that cannot be parsed or is
	// out of range, such as ssl.clientAuth=maybe.
	ErrBadValue = errors.New("bad value")

	// ErrUnsupported reports a setting that asks for a check or format this
	// package cannot provide. It is an error rather than a warning so a
	// server never runs with less protection than its configuration asks
	// for.
	ErrUnsupported = errors.New("not supported")

	// ErrPassword reports a store or key that could not be opened with the
	// configured password.
	ErrPassword = errors.New("wrong password")

	// ErrNoKey reports a key store that holds no usable private key and
	// certificate.
	ErrNoKey = errors.New("no private key with a certificate")

	// ErrNoTrustedCerts reports a trust store that holds no certificates.
	ErrNoTrustedCerts = errors.New("no trusted certificates")

	// ErrNoKeyStore is returned from a server handshake when the Source has
	// no key store, so there is no certificate to present.
	ErrNoKeyStore = errors.New("no key store configured")

	// ErrHostname reports a peer certificate that does not name the
	// address or host it was checked against.
	ErrHostname = errors.New("certificate does not match host")
)
