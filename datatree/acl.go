package datatree

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/zkraft/zkraft/wire"
)

// aclEntry is one distinct ACL list shared by all nodes that carry it
// (ZooKeeper's ReferenceCountedACLCache).
type aclEntry struct {
	acl  []wire.ACL
	key  string
	refs int64
}

// aclTable interns ACL lists so that a node stores a 4-byte index. Entries
// whose count drops to zero are only released by flush, at the end of a
// top-level transaction, so that a rolled-back multi can take its
// references back without the index having been reused.
type aclTable struct {
	entries []aclEntry
	byKey   map[string]uint32
	free    []uint32 // released indexes, reused LIFO
	pending []uint32 // indexes whose count reached zero in this txn
	keyBuf  []byte
}

func newACLTable() aclTable { return aclTable{byKey: make(map[string]uint32)} }

// appendACLKey appends a canonical byte encoding of acl to b.
func appendACLKey(b []byte, acl []wire.ACL) []byte {
	for _, a := range acl {
		b = binary.BigEndian.AppendUint32(b, uint32(a.Perms))
		b = binary.BigEndian.AppendUint32(b, uint32(len(a.ID.Scheme)))
		b = append(b, a.ID.Scheme...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(a.ID.ID)))
		b = append(b, a.ID.ID...)
	}
	return b
}

// acquire returns the index of acl, interning a private copy if it is new,
// and takes one reference.
func (t *aclTable) acquire(acl []wire.ACL) uint32 {
	t.keyBuf = appendACLKey(t.keyBuf[:0], acl)
	if idx, ok := t.byKey[string(t.keyBuf)]; ok {
		t.entries[idx].refs++
		return idx
	}
	e := aclEntry{acl: append([]wire.ACL(nil), acl...), key: string(t.keyBuf), refs: 1}
	var idx uint32
	if n := len(t.free); n > 0 {
		idx = t.free[n-1]
		t.free = t.free[:n-1]
		t.entries[idx] = e
	} else {
		idx = uint32(len(t.entries))
		t.entries = append(t.entries, e)
	}
	t.byKey[e.key] = idx
	return idx
}

// retain takes one more reference on an existing index (used when a
// rolled-back delete puts its node back).
func (t *aclTable) retain(idx uint32) { t.entries[idx].refs++ }

// release drops one reference; an entry reaching zero is queued for flush.
func (t *aclTable) release(idx uint32) {
	e := &t.entries[idx]
	e.refs--
	if e.refs == 0 {
		t.pending = append(t.pending, idx)
	}
}

// flush frees the queued entries that are still unreferenced.
func (t *aclTable) flush() {
	for _, idx := range t.pending {
		e := &t.entries[idx]
		if e.refs != 0 || e.acl == nil {
			continue
		}
		delete(t.byKey, e.key)
		*e = aclEntry{}
		t.free = append(t.free, idx)
	}
	t.pending = t.pending[:0]
}

// get returns the interned list; callers must not modify it.
func (t *aclTable) get(idx uint32) []wire.ACL { return t.entries[idx].acl }

// live returns the number of interned lists.
func (t *aclTable) live() int { return len(t.byKey) }

// scheme is one authentication provider as far as ACLs are concerned.
type scheme struct {
	valid         func(id string) bool
	matches       func(clientID, aclID string) bool
	authenticated bool // AuthenticationProvider.isAuthenticated
}

// ACLScheme is an authentication provider beyond the built-in ip and
// digest (ZooKeeper's authProvider.N), as far as ACLs are concerned: which
// ids an ACL may name, which of a client's ids an ACL id grants, and
// whether the "auth" pseudo-scheme expands to the client's ids of it.
type ACLScheme interface {
	Valid(id string) bool
	Matches(clientID, aclID string) bool
	Authenticated() bool
}

// Schemes is the set of providers ACLs are checked against. The zero
// value is not usable; see NewSchemes.
type Schemes struct{ m map[string]scheme }

// defaultSchemes are the providers ZooKeeper 3.8 registers by default
// (ProviderRegistry.initialize): ip and digest. "world" and "auth" are
// handled specially by fixupACL/checkACL; "super" has no provider.
var defaultSchemes = NewSchemes(nil)

// NewSchemes returns ip and digest plus extra, by scheme name. An extra
// provider cannot replace ip or digest.
func NewSchemes(extra map[string]ACLScheme) *Schemes {
	m := map[string]scheme{
		"ip":     {valid: ipValid, matches: ipMatches},
		"digest": {valid: digestValid, matches: func(c, a string) bool { return c == a }, authenticated: true},
	}
	for name, p := range extra {
		if _, builtin := m[name]; !builtin && p != nil {
			m[name] = scheme{valid: p.Valid, matches: p.Matches, authenticated: p.Authenticated()}
		}
	}
	return &Schemes{m: m}
}

// Allows reports whether identities auth hold perm under acl, with the
// same rules as a tree's CheckACL (used to filter watch notifications).
func (s *Schemes) Allows(acl []wire.ACL, perm int32, auth []wire.Id) bool {
	return s.checkACL(acl, perm, auth) == nil
}

// isAnyone reports the world:anyone id.
func isAnyone(id wire.Id) bool { return id.Scheme == "world" && id.ID == "anyone" }

// removeDuplicates keeps the first occurrence of every ACL, in order.
func removeDuplicates(acl []wire.ACL) []wire.ACL {
	for i := 1; i < len(acl); i++ {
		for j := 0; j < i; j++ {
			if acl[i] == acl[j] {
				return dedupSlow(acl)
			}
		}
	}
	return acl
}

func dedupSlow(acl []wire.ACL) []wire.ACL {
	out := make([]wire.ACL, 0, len(acl))
outer:
	for _, a := range acl {
		for _, b := range out {
			if a == b {
				continue outer
			}
		}
		out = append(out, a)
	}
	return out
}

// fixupACL validates and expands an ACL for create or setACL exactly as
// PrepRequestProcessor.fixupACL: duplicates are removed, an empty list, an
// unknown scheme or an id its provider rejects is INVALIDACL, and the "auth"
// scheme expands to every authenticated id of the caller (digest; not ip,
// not super), INVALIDACL when there is none; an id that arrived null is
// MARSHALLINGERROR where ZooKeeper dereferences it. The result may alias acl.
func (s *Schemes) fixupACL(acl []wire.ACL, auth []wire.Id) ([]wire.ACL, error) {
	uniq := removeDuplicates(acl)
	if len(uniq) == 0 {
		return nil, wire.CodeInvalidACL
	}
	if s.plainACL(uniq) {
		return uniq, nil
	}
	out := make([]wire.ACL, 0, len(uniq))
	for _, a := range uniq {
		if a.ID.Scheme == "auth" {
			n := len(out)
			for _, id := range auth {
				if p, ok := s.m[id.Scheme]; ok && p.authenticated {
					out = append(out, wire.ACL{Perms: a.Perms, ID: id})
				}
			}
			if len(out) == n {
				return nil, wire.CodeInvalidACL
			}
			continue
		}
		if s.nullIDFails(a.ID) {
			return nil, errNullID
		}
		if !s.validEntry(a) {
			return nil, wire.CodeInvalidACL
		}
		out = append(out, a)
	}
	return out, nil
}

// errNullID is ZooKeeper's NullPointerException on an ACL id that arrived
// null: MARSHALLINGERROR, and, not being a KeeperException, it fails a
// whole multi rather than only its op (applyMulti).
var errNullID = fmt.Errorf("%w: an ACL id is null", wire.CodeMarshallingError)

// nullIDFails reports whether ZooKeeper's fixupACL fails on an entry whose
// id arrived null (wire.NullIDField): world compares it with "anyone" and a
// scheme's provider validates it, both throwing a NullPointerException,
// which ZooKeeper answers with MARSHALLINGERROR. A null scheme is
// INVALIDACL there (it is checked), and so is an unknown scheme.
func (s *Schemes) nullIDFails(id wire.Id) bool {
	if id.ID != wire.NullIDField {
		return false
	}
	_, known := s.m[id.Scheme]
	return known || id.Scheme == "world"
}

// validEntry checks a non-"auth" entry: world:anyone or an id its scheme's
// provider accepts.
func (s *Schemes) validEntry(a wire.ACL) bool {
	if isAnyone(a.ID) {
		return true
	}
	p, ok := s.m[a.ID.Scheme]
	return ok && p.valid(a.ID.ID)
}

// plainACL reports whether every entry is valid and none uses "auth", in
// which case fixupACL can return the list unchanged; otherwise its slow
// path expands or rejects.
func (s *Schemes) plainACL(acl []wire.ACL) bool {
	for _, a := range acl {
		if a.ID.Scheme == "auth" || !s.validEntry(a) {
			return false
		}
	}
	return true
}

// checkACL is ZooKeeperServer.checkACL: an empty ACL or a super id allows
// everything; otherwise some entry granting perm must be world:anyone or
// match one of the caller's ids of the same scheme. Denial is NOAUTH.
func (s *Schemes) checkACL(acl []wire.ACL, perm int32, auth []wire.Id) error {
	if len(acl) == 0 {
		return nil
	}
	for _, id := range auth {
		if id.Scheme == "super" {
			return nil
		}
	}
	for _, a := range acl {
		if a.Perms&perm == 0 {
			continue
		}
		if isAnyone(a.ID) {
			return nil
		}
		p, ok := s.m[a.ID.Scheme]
		if !ok {
			continue
		}
		for _, id := range auth {
			if id.Scheme == a.ID.Scheme && p.matches(id.ID, a.ID.ID) {
				return nil
			}
		}
	}
	return wire.CodeNoAuth
}

// digestValid is DigestAuthenticationProvider.isValid: id.split(":") must
// give exactly two parts, with Java's removal of trailing empty strings
// ("u:h:" is valid, "u:" and "u:h:x" are not).
func digestValid(id string) bool {
	parts := strings.Split(id, ":")
	if id != "" {
		for len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
	}
	return len(parts) == 2
}

// DigestID returns the digest-scheme id for a "user:password" credential as
// DigestAuthenticationProvider.generateDigest computes it:
// "user:" + base64(sha1("user:password")). The user part is everything
// before the first ':'. The string's bytes are hashed as given.
func DigestID(userPassword string) string {
	user, _, _ := strings.Cut(userPassword, ":")
	sum := sha1.Sum([]byte(userPassword))
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:])
}

// javaParseInt mirrors Integer.parseInt for ASCII input: an optional sign
// and decimal digits fitting in 32 bits.
func javaParseInt(s string) (int, bool) {
	v, err := strconv.ParseInt(s, 10, 32)
	return int(v), err == nil
}

// ipv4 parses a dotted quad as IPAuthenticationProvider.v4addr2Bytes: exactly
// four parts, each an integer in 0..255. ZooKeeper 3.8 has no IPv6 support
// in the ip scheme, so anything else is rejected.
func ipv4(addr string) ([4]byte, bool) {
	var b [4]byte
	parts := strings.Split(addr, ".")
	if len(parts) != 4 {
		return b, false
	}
	for i, p := range parts {
		v, ok := javaParseInt(p)
		if !ok || v < 0 || v > 255 {
			return b, false
		}
		b[i] = byte(v)
	}
	return b, true
}

// ipExpr parses an ip ACL expression "a.b.c.d" or "a.b.c.d/bits".
func ipExpr(expr string) (addr [4]byte, bits int, ok bool) {
	host, mask, hasMask := strings.Cut(expr, "/")
	addr, ok = ipv4(host)
	if !ok {
		return addr, 0, false
	}
	bits = 32
	if hasMask {
		bits, ok = javaParseInt(mask)
		if !ok || bits < 0 || bits > 32 {
			return addr, 0, false
		}
	}
	return addr, bits, true
}

// ipValid is IPAuthenticationProvider.isValid.
func ipValid(id string) bool {
	_, _, ok := ipExpr(id)
	return ok
}

// ipMatches is IPAuthenticationProvider.matches: the client address and the
// ACL address must agree on the first bits bits.
func ipMatches(clientID, aclExpr string) bool {
	acl, bits, ok := ipExpr(aclExpr)
	if !ok {
		return false
	}
	client, ok := ipv4(clientID)
	if !ok {
		return false
	}
	a := binary.BigEndian.Uint32(acl[:])
	c := binary.BigEndian.Uint32(client[:])
	mask := ^uint32(0) << (32 - bits)
	if bits == 0 {
		mask = 0
	}
	return a&mask == c&mask
}

// ACLAllows reports whether identities auth hold perm under acl with the
// default providers (ip and digest); see Schemes.Allows.
func ACLAllows(acl []wire.ACL, perm int32, auth []wire.Id) bool {
	return defaultSchemes.Allows(acl, perm, auth)
}

// HasDigest reports whether some node's ACL names digest id (the
// "user:base64(sha1)" form): a digest password that hashes to it is one
// the tree's owners gave out. The web console counts only such a password
// (or the superDigest) as verified, since the digest scheme itself accepts
// any made-up user and password.
func (t *Tree) HasDigest(id string) bool {
	for _, e := range t.acls.entries {
		if e.refs <= 0 {
			continue
		}
		for _, a := range e.acl {
			if a.ID.Scheme == "digest" && a.ID.ID == id {
				return true
			}
		}
	}
	return false
}
