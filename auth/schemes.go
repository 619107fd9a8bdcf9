package auth

import (
	"regexp"
	"strings"

	"github.com/zkraft/zkraft/datatree"
)

// SASLScheme is ZooKeeper's SASLAuthenticationProvider as ACLs see it.
type SASLScheme struct {
	// LetAnyUserDoX is zookeeper.letAnySaslUserDoX: an ACL id that every
	// SASL-authenticated client matches ("" when unset).
	LetAnyUserDoX string
}

var (
	_ datatree.ACLScheme = SASLScheme{}
	_ datatree.ACLScheme = X509Scheme{}
)

// kerberosName is KerberosName's pattern: service[/host]@REALM.
var kerberosName = regexp.MustCompile(`^[^/@]*(/[^/@]*)?@[^/@]*$`)

// Valid accepts what KerberosName accepts: any name without "@", or
// service[/host]@realm with no further "/" or "@".
func (SASLScheme) Valid(id string) bool {
	return !strings.Contains(id, "@") || kerberosName.MatchString(id)
}

// Matches grants an ACL id to the same id, to the SASL user named "super",
// and to every SASL id when the ACL names LetAnyUserDoX.
func (s SASLScheme) Matches(clientID, aclID string) bool {
	if clientID == "super" || clientID == aclID {
		return true
	}
	return s.LetAnyUserDoX != "" && aclID == s.LetAnyUserDoX
}

// Authenticated is true: the "auth" ACL scheme expands to sasl ids.
func (SASLScheme) Authenticated() bool { return true }

// X509Scheme is ZooKeeper's X509AuthenticationProvider as ACLs see it.
type X509Scheme struct{}

// Valid accepts a distinguished name that Java's X500Principal parses.
func (X509Scheme) Valid(id string) bool { return ValidDN(id) }

// Matches compares ids exactly, as ZooKeeper does.
func (X509Scheme) Matches(clientID, aclID string) bool { return clientID == aclID }

// Authenticated is true: the "auth" ACL scheme expands to x509 ids.
func (X509Scheme) Authenticated() bool { return true }
