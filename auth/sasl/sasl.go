package sasl

import "errors"

// Server is one connection's SASL exchange.
type Server interface {
	// Mechanism is the SASL mechanism name, such as "DIGEST-MD5".
	Mechanism() string
	// Step takes the client's token and returns the next challenge; done
	// is true once authentication succeeded (the last challenge, for
	// DIGEST-MD5 rspauth=..., must still be sent to the client). A nil
	// challenge is no token at all, which ZooKeeper sends as a null one
	// and its Java client tells apart from an empty one. Any call after an
	// error or after done returns ErrAuthFailed.
	Step(response []byte) (challenge []byte, done bool, err error)
	// AuthorizationID is the authenticated id once done ("" before).
	AuthorizationID() string
}

var (
	// ErrAuthFailed is returned, possibly wrapped with a reason, for every
	// malformed, wrong or out-of-turn token.
	ErrAuthFailed = errors.New("sasl: authentication failed")
	// ErrNonce is returned, wrapped with the cause, when the nonce source
	// fails.
	ErrNonce = errors.New("sasl: cannot generate nonce")
)
