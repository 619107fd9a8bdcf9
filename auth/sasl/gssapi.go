package sasl

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jcmturner/gofork/encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/asn1tools"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/iana/asnAppTag"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/msgtype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// MechanismGSSAPI is the SASL name of the Kerberos V5 mechanism.
const MechanismGSSAPI = "GSSAPI"

// DefaultMaxClockSkew is the clock skew allowed when GSSAPI.MaxClockSkew
// is zero (the Kerberos default).
const DefaultMaxClockSkew = 5 * time.Minute

// gssMaxBuffer is the receive buffer size the server announces, the JDK's
// default (javax.security.sasl.maxbuffer).
const gssMaxBuffer = 65536

// layerNone is the RFC 4752 bit for "no security layer".
const layerNone = 1

// GSSAPI is the SASL GSSAPI mechanism (RFC 4752) over Kerberos v5
// (RFC 4121) as ZooKeeper 3.8 runs it. One GSSAPI serves all connections;
// it keeps the replay cache they share. Fields must not change once
// NewServer has been called.
type GSSAPI struct {
	// Keytab holds the service's keys (load one with keytab.Load).
	Keytab *keytab.Keytab
	// Principal is the service principal, e.g.
	// "zookeeper/localhost@REALM" (the JAAS Server section's
	// principal). Only tickets for it are accepted; without a realm, any
	// realm. Empty accepts a ticket for any principal the keytab has a
	// key for.
	Principal string
	// RemoveHostFromPrincipal and RemoveRealmFromPrincipal strip "/host"
	// and "@REALM" from the client's principal to make the authorization
	// id, as ZooKeeper's kerberos.removeHostFromPrincipal and
	// kerberos.removeRealmFromPrincipal do.
	RemoveHostFromPrincipal, RemoveRealmFromPrincipal bool
	// MaxClockSkew is how far the client's clock and the ticket times
	// may be off; DefaultMaxClockSkew when zero.
	MaxClockSkew time.Duration

	mu     sync.Mutex
	replay map[string]time.Time // authenticator -> expiry
}

// NewServer starts one connection's exchange.
func (g *GSSAPI) NewServer() Server { return &gssServer{g: g} }

func (g *GSSAPI) skew() time.Duration {
	if g.MaxClockSkew > 0 {
		return g.MaxClockSkew
	}
	return DefaultMaxClockSkew
}

// seen records an authenticator and reports whether it was seen before
// (RFC 4120 section 3.2.3): the key is client, server and the
// authenticator's time; entries are kept for twice the skew.
func (g *GSSAPI) seen(a *messages.APReq) bool {
	key := fmt.Sprintf("%s@%s|%s@%s|%d.%d", a.Authenticator.CName.PrincipalNameString(), a.Authenticator.CRealm,
		a.Ticket.SName.PrincipalNameString(), a.Ticket.Realm, a.Authenticator.CTime.UnixNano(), a.Authenticator.Cusec)
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.replay == nil {
		g.replay = make(map[string]time.Time)
	}
	for k, exp := range g.replay {
		if now.After(exp) {
			delete(g.replay, k)
		}
	}
	if _, ok := g.replay[key]; ok {
		return true
	}
	g.replay[key] = now.Add(2 * g.skew())
	return false
}

// gssState is where a gssServer is in the exchange.
type gssState int

const (
	gssAccept     gssState = iota // waiting for the initial context token
	gssAwaitAck                   // AP-REP sent, waiting for the empty token
	gssAwaitLayer                 // security-layer offer sent
	gssDone
	gssFailed
)

type gssServer struct {
	g       *GSSAPI
	state   gssState
	key     types.EncryptionKey // initiator subkey, else session key
	sendSeq uint64              // acceptor's sequence number
	recvSeq uint64              // initiator's sequence number
	peer    types.PrincipalName
	realm   string
	authzID string
}

func (s *gssServer) Mechanism() string { return MechanismGSSAPI }

func (s *gssServer) AuthorizationID() string {
	if s.state != gssDone {
		return ""
	}
	return s.authzID
}

func (s *gssServer) Step(response []byte) (challenge []byte, done bool, err error) {
	defer func() {
		if !gssCatchPanics {
			return
		}
		if r := recover(); r != nil {
			challenge, done, err = nil, false, fmt.Errorf("%w: gssapi: malformed token (%v)", ErrAuthFailed, r)
		}
		if err != nil {
			s.state = gssFailed
			s.key = types.EncryptionKey{}
		}
	}()
	switch s.state {
	case gssAccept:
		return s.accept(response)
	case gssAwaitAck:
		if len(response) != 0 {
			return nil, false, fmt.Errorf("%w: gssapi: expected an empty token after the AP-REP", ErrAuthFailed)
		}
		return s.offerLayer()
	case gssAwaitLayer:
		return s.chooseLayer(response)
	}
	return nil, false, fmt.Errorf("%w: gssapi: exchange already finished", ErrAuthFailed)
}

// gssCatchPanics turns a panic in the Kerberos decoding into
// ErrAuthFailed; the fuzz test turns it off to see them.
var gssCatchPanics = true

func gssFail(format string, a ...any) error {
	return fmt.Errorf("%w: gssapi: %s", ErrAuthFailed, fmt.Sprintf(format, a...))
}

// accept verifies the client's initial context token.
func (s *gssServer) accept(tok []byte) ([]byte, bool, error) {
	g := s.g
	if g.Keytab == nil {
		return nil, false, gssFail("no keytab")
	}
	id, inner, err := parseGSSToken(tok)
	if err != nil {
		return nil, false, gssFail("%v", err)
	}
	if id != tokAPReq {
		return nil, false, gssFail("token id %x is not AP-REQ", id)
	}
	var req messages.APReq
	if err := req.Unmarshal(inner); err != nil {
		return nil, false, gssFail("AP-REQ: %v", err)
	}
	if types.IsFlagSet(&req.APOptions, flags.APOptionUseSessionKey) {
		return nil, false, gssFail("user-to-user tickets are not supported")
	}
	var sname *types.PrincipalName
	if g.Principal != "" {
		pn, realm := types.ParseSPNString(g.Principal)
		if !pn.Equal(req.Ticket.SName) || (realm != "" && realm != req.Ticket.Realm) {
			return nil, false, gssFail("ticket is for %s@%s, not %s",
				req.Ticket.SName.PrincipalNameString(), req.Ticket.Realm, g.Principal)
		}
		sname = &pn
	}
	for _, ed := range []types.EncryptedData{req.Ticket.EncPart, req.EncryptedAuthenticator} {
		if err := checkCiphertext(ed); err != nil {
			return nil, false, gssFail("AP-REQ: %v", err)
		}
	}
	if ok, err := req.Verify(g.Keytab, g.skew(), types.HostAddress{}, sname); err != nil || !ok {
		return nil, false, gssFail("AP-REQ not valid: %v", err)
	}
	auth := &req.Authenticator
	mutual := types.IsFlagSet(&req.APOptions, flags.APOptionMutualRequired)
	if auth.Cksum.CksumType != 0x8003 {
		return nil, false, gssFail("authenticator checksum type %d is not the GSS-API one", auth.Cksum.CksumType)
	}
	gssFlags, err := parseGSSChecksum(auth.Cksum.Checksum)
	if err != nil {
		return nil, false, gssFail("%v", err)
	}
	if gssFlags&gssMutualFlag != 0 {
		mutual = true
	}
	if g.seen(&req) {
		return nil, false, gssFail("replayed authenticator")
	}
	s.key = req.Ticket.DecryptedEncPart.Key
	if auth.SubKey.KeyType != 0 && len(auth.SubKey.KeyValue) > 0 {
		s.key = auth.SubKey
	}
	if !cfxKey(s.key) {
		return nil, false, gssFail("enctype %d is not supported", s.key.KeyType)
	}
	s.peer = req.Ticket.DecryptedEncPart.CName
	s.realm = req.Ticket.DecryptedEncPart.CRealm
	s.recvSeq = uint64(uint32(auth.SeqNumber))
	if !mutual {
		// No AP-REP: the acceptor starts from the initiator's number,
		// as MIT, Windows and the JDK do.
		s.sendSeq = s.recvSeq
		return s.offerLayer()
	}
	var seqb [4]byte
	if _, err := rand.Read(seqb[:]); err != nil {
		return nil, false, gssFail("random: %v", err)
	}
	s.sendSeq = uint64(binary.BigEndian.Uint32(seqb[:]) & 0x3fffffff)
	rep, err := makeAPRep(req.Ticket.DecryptedEncPart.Key, auth.CTime, auth.Cusec, int64(s.sendSeq))
	if err != nil {
		return nil, false, gssFail("AP-REP: %v", err)
	}
	s.state = gssAwaitAck
	return frameGSSToken(tokAPRep, rep), false, nil
}

// checkCiphertext refuses encrypted data of an unknown enctype or too
// short to hold a confounder and a checksum, which gokrb5 v8.4.4 would
// panic on.
func checkCiphertext(ed types.EncryptedData) error {
	et, err := crypto.GetEtype(ed.EType)
	if err != nil {
		return err
	}
	if len(ed.Cipher) < et.GetConfounderByteSize()+et.GetHMACBitLength()/8 {
		return fmt.Errorf("ciphertext of %d bytes is too short", len(ed.Cipher))
	}
	return nil
}

// gssMutualFlag is GSS_C_MUTUAL_FLAG in the checksum's flags.
const gssMutualFlag = 2

// parseGSSChecksum reads the flags of the RFC 4121 section 4.1.1
// authenticator checksum: Lgth (16), Bnd, Flags, and the delegation
// fields when GSS_C_DELEG_FLAG is set (ignored: delegated credentials are
// not used).
func parseGSSChecksum(b []byte) (uint32, error) {
	if len(b) < 24 {
		return 0, errors.New("authenticator checksum too short")
	}
	if binary.LittleEndian.Uint32(b[0:4]) != 16 {
		return 0, errors.New("channel binding length is not 16")
	}
	return binary.LittleEndian.Uint32(b[20:24]), nil
}

// encAPRepPart is EncAPRepPart of RFC 4120 section 5.5.2 without subkey.
type encAPRepPart struct {
	CTime          time.Time `asn1:"generalized,explicit,tag:0"`
	Cusec          int       `asn1:"explicit,tag:1"`
	SequenceNumber int64     `asn1:"explicit,tag:3"`
}

type apRep struct {
	PVNO    int                 `asn1:"explicit,tag:0"`
	MsgType int                 `asn1:"explicit,tag:1"`
	EncPart types.EncryptedData `asn1:"explicit,tag:2"`
}

// makeAPRep builds the KRB_AP_REP answering an authenticator: its ctime
// and cusec and our sequence number, encrypted in the ticket's session key
// with key usage 12.
func makeAPRep(sessionKey types.EncryptionKey, ctime time.Time, cusec int, seq int64) ([]byte, error) {
	b, err := asn1.Marshal(encAPRepPart{CTime: ctime.UTC(), Cusec: cusec, SequenceNumber: seq})
	if err != nil {
		return nil, err
	}
	b = asn1tools.AddASNAppTag(b, asnAppTag.EncAPRepPart)
	ed, err := crypto.GetEncryptedData(b, sessionKey, 12, 0)
	if err != nil {
		return nil, err
	}
	b, err = asn1.Marshal(apRep{PVNO: 5, MsgType: msgtype.KRB_AP_REP, EncPart: ed})
	if err != nil {
		return nil, err
	}
	return asn1tools.AddASNAppTag(b, asnAppTag.APREP), nil
}

// offerLayer sends the RFC 4752 offer: no security layer only, and our
// maximum buffer size.
func (s *gssServer) offerLayer() ([]byte, bool, error) {
	maxBuf := uint32(gssMaxBuffer)
	offer := []byte{layerNone, byte(maxBuf >> 16), byte(maxBuf >> 8), byte(maxBuf)}
	tok, err := wrapToken(offer, flagSentByAcceptor, s.sendSeq, s.key, usageAcceptorSeal)
	if err != nil {
		return nil, false, gssFail("wrap: %v", err)
	}
	s.sendSeq++
	s.state = gssAwaitLayer
	return tok, false, nil
}

// chooseLayer checks the client's answer to the offer.
func (s *gssServer) chooseLayer(tok []byte) ([]byte, bool, error) {
	msg, err := unwrapToken(tok, false, false, s.recvSeq, s.key, usageInitiatorSeal)
	if err != nil {
		return nil, false, gssFail("%v", err)
	}
	if len(msg) < 4 {
		return nil, false, gssFail("security layer answer too short")
	}
	if msg[0] != layerNone {
		return nil, false, gssFail("client chose security layer %#x; only none (1) is offered", msg[0])
	}
	s.recvSeq++
	s.authzID = s.authorizationID()
	s.key = types.EncryptionKey{}
	s.state = gssDone
	return nil, true, nil // no token: the JDK's null, which ZooKeeper's client waits for
}

// authorizationID is the client's principal as ZooKeeper's
// SaslServerCallbackHandler makes it: first component, "/" and the
// second (unless RemoveHostFromPrincipal), "@" and the realm (unless
// RemoveRealmFromPrincipal).
func (s *gssServer) authorizationID() string {
	parts := s.peer.NameString
	var b strings.Builder
	if len(parts) > 0 {
		b.WriteString(parts[0])
	}
	if len(parts) > 1 && !s.g.RemoveHostFromPrincipal {
		b.WriteString("/")
		b.WriteString(strings.Join(parts[1:], "/"))
	}
	if s.realm != "" && !s.g.RemoveRealmFromPrincipal {
		b.WriteString("@")
		b.WriteString(s.realm)
	}
	return b.String()
}

func subtleEqual(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }
