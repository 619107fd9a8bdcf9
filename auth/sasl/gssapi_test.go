package sasl

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
	"github.com/stretchr/testify/require"
)

// These tests play the initiator with gokrb5's own message types and
// wrap tokens: tickets are forged with a service keytab made in the test,
// so no KDC is needed.

const testService = "zookeeper/localhost"

func testServiceKeytab(t testing.TB, password string, etypes ...int32) *keytab.Keytab {
	t.Helper()
	if len(etypes) == 0 {
		etypes = []int32{etypeID.AES256_CTS_HMAC_SHA1_96}
	}
	kt := keytab.New()
	for _, e := range etypes {
		require.NoError(t, kt.AddEntry(testService, testRealm, password, time.Now(), 1, e))
	}
	return kt
}

// initiator describes one forged AP-REQ.
type initiator struct {
	client     string // "zkclient" or "zkclient/host"
	service    string // defaults to testService
	etype      int32  // defaults to AES256
	start, end time.Time
	ctime      time.Time // authenticator time; now when zero
	apMutual   bool      // AP option mutual-required
	gssMutual  bool      // GSS_C_MUTUAL_FLAG in the checksum
	noSubkey   bool
	cksumType  int32 // defaults to 0x8003
}

// initCtx is the initiator's side of an established context.
type initCtx struct {
	token      []byte
	sessionKey types.EncryptionKey
	key        types.EncryptionKey // subkey or session key
	seq        uint64
	auth       types.Authenticator
}

func (in initiator) build(t testing.TB, kt *keytab.Keytab) *initCtx {
	t.Helper()
	now := time.Now().UTC()
	if in.service == "" {
		in.service = testService
	}
	if in.etype == 0 {
		in.etype = etypeID.AES256_CTS_HMAC_SHA1_96
	}
	if in.start.IsZero() {
		in.start = now.Add(-time.Minute)
	}
	if in.end.IsZero() {
		in.end = now.Add(time.Hour)
	}
	if in.client == "" {
		in.client = "zkclient"
	}
	if in.cksumType == 0 {
		in.cksumType = 0x8003
	}
	cname := types.NewPrincipalName(nametype.KRB_NT_PRINCIPAL, in.client)
	sname := types.NewPrincipalName(nametype.KRB_NT_SRV_HST, in.service)
	tkt, sk, err := messages.NewTicket(cname, testRealm, sname, testRealm, types.NewKrbFlags(), kt, in.etype, 1, in.start, in.start, in.end, in.end)
	require.NoError(t, err)
	auth, err := types.NewAuthenticator(testRealm, cname)
	require.NoError(t, err)
	if !in.ctime.IsZero() {
		auth.CTime = in.ctime
	}
	// KerberosTime has whole seconds; the microseconds are in Cusec.
	auth.CTime = auth.CTime.Truncate(time.Second)
	key := sk
	if !in.noSubkey {
		require.NoError(t, auth.GenerateSeqNumberAndSubKey(in.etype, len(sk.KeyValue)))
		key = auth.SubKey
	}
	ck := make([]byte, 24)
	binary.LittleEndian.PutUint32(ck, 16)
	gf := uint32(0x20 | 0x10 | 0x08) // integ, conf, sequence
	if in.gssMutual {
		gf |= gssMutualFlag
	}
	binary.LittleEndian.PutUint32(ck[20:], gf)
	auth.Cksum = types.Checksum{CksumType: in.cksumType, Checksum: ck}
	req, err := messages.NewAPReq(tkt, sk, auth)
	require.NoError(t, err)
	if in.apMutual {
		types.SetFlag(&req.APOptions, flags.APOptionMutualRequired)
	}
	b, err := req.Marshal()
	require.NoError(t, err)
	return &initCtx{token: frameGSSToken(tokAPReq, b), sessionKey: sk, key: key, seq: uint64(auth.SeqNumber), auth: auth}
}

// initiatorWrap is the initiator's wrap token made with gokrb5's
// implementation.
func (c *initCtx) wrap(t testing.TB, payload []byte) []byte {
	t.Helper()
	et, err := crypto.GetEtype(c.key.KeyType)
	require.NoError(t, err)
	wt := gssapi.WrapToken{Flags: 0, EC: uint16(et.GetHMACBitLength() / 8), SndSeqNum: c.seq, Payload: payload}
	require.NoError(t, wt.SetCheckSum(c.key, usageInitiatorSeal))
	b, err := wt.Marshal()
	require.NoError(t, err)
	return b
}

// checkOffer verifies the server's security-layer offer with gokrb5 and
// returns its payload.
func (c *initCtx) checkOffer(t testing.TB, tok []byte, acceptorSeq uint64) []byte {
	t.Helper()
	var wt gssapi.WrapToken
	require.NoError(t, wt.Unmarshal(tok, true))
	ok, err := wt.Verify(c.key, usageAcceptorSeal)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, acceptorSeq, wt.SndSeqNum)
	require.Equal(t, byte(flagSentByAcceptor), wt.Flags)
	return wt.Payload
}

// checkAPRep decrypts the server's AP-REP and returns the acceptor's
// sequence number.
func (c *initCtx) checkAPRep(t testing.TB, tok []byte) uint64 {
	t.Helper()
	id, inner, err := parseGSSToken(tok)
	require.NoError(t, err)
	require.Equal(t, tokAPRep, id)
	var rep messages.APRep
	require.NoError(t, rep.Unmarshal(inner))
	b, err := crypto.DecryptEncPart(rep.EncPart, c.sessionKey, 12)
	require.NoError(t, err)
	var part messages.EncAPRepPart
	require.NoError(t, part.Unmarshal(b))
	require.True(t, part.CTime.Equal(c.auth.CTime), "ctime %v, want %v", part.CTime, c.auth.CTime)
	require.Equal(t, c.auth.Cusec, part.Cusec)
	return uint64(part.SequenceNumber)
}

// run drives s through a whole exchange and returns the final error.
func (c *initCtx) run(t testing.TB, s Server, mutual bool, answer []byte) error {
	t.Helper()
	ch, done, err := s.Step(c.token)
	if err != nil {
		return err
	}
	require.False(t, done)
	accSeq := c.seq
	if mutual {
		accSeq = c.checkAPRep(t, ch)
		ch, done, err = s.Step(nil)
		require.NoError(t, err)
		require.False(t, done)
	}
	require.Equal(t, []byte{1, 0x01, 0x00, 0x00}, c.checkOffer(t, ch, accSeq))
	if answer == nil {
		answer = c.wrap(t, []byte{1, 0, 0, 0})
	}
	ch, done, err = s.Step(answer)
	if err != nil {
		require.Empty(t, s.AuthorizationID())
		return err
	}
	require.True(t, done)
	require.Empty(t, ch)
	return nil
}

func TestGSSAPIForgedTickets(t *testing.T) {
	kt := testServiceKeytab(t, "service-secret", etypeID.AES256_CTS_HMAC_SHA1_96, etypeID.AES128_CTS_HMAC_SHA1_96,
		etypeID.AES128_CTS_HMAC_SHA256_128, etypeID.AES256_CTS_HMAC_SHA384_192)
	for name, c := range map[string]struct {
		in     initiator
		mutual bool
		want   string
	}{
		"plain":            {initiator{}, false, "zkclient@" + testRealm},
		"ap mutual":        {initiator{apMutual: true}, true, "zkclient@" + testRealm},
		"gss mutual":       {initiator{gssMutual: true}, true, "zkclient@" + testRealm},
		"both mutual":      {initiator{apMutual: true, gssMutual: true}, true, "zkclient@" + testRealm},
		"no subkey":        {initiator{noSubkey: true}, false, "zkclient@" + testRealm},
		"no subkey mutual": {initiator{noSubkey: true, apMutual: true}, true, "zkclient@" + testRealm},
		"aes128":           {initiator{etype: etypeID.AES128_CTS_HMAC_SHA1_96}, false, "zkclient@" + testRealm},
		"aes128-sha256":    {initiator{etype: etypeID.AES128_CTS_HMAC_SHA256_128, apMutual: true}, true, "zkclient@" + testRealm},
		// No aes256-cts-hmac-sha384-192 case: gokrb5 v8.4.4 makes
		// 24-byte session keys for it (GetKeyByteSize is 192/8), so
		// messages.NewTicket cannot forge one.
		"host principal": {initiator{client: "zkclient/host.example"}, false, "zkclient/host.example@" + testRealm},
		"skew within":    {initiator{ctime: time.Now().Add(-4 * time.Minute)}, false, "zkclient@" + testRealm},
	} {
		t.Run(name, func(t *testing.T) {
			g := &GSSAPI{Keytab: kt, Principal: testService + "@" + testRealm}
			s := g.NewServer()
			require.NoError(t, c.in.build(t, kt).run(t, s, c.mutual, nil))
			require.Equal(t, c.want, s.AuthorizationID())
			_, _, err := s.Step(nil)
			require.ErrorIs(t, err, ErrAuthFailed)
			_, _, err = s.Step([]byte{1, 0, 0, 0})
			require.ErrorIs(t, err, ErrAuthFailed)
		})
	}
}

func TestGSSAPIAuthorizationID(t *testing.T) {
	kt := testServiceKeytab(t, "service-secret")
	for _, c := range []struct {
		client      string
		host, realm bool
		want        string
	}{
		{"zkclient", false, false, "zkclient@ZKRAFT.TEST"},
		{"zkclient", true, false, "zkclient@ZKRAFT.TEST"},
		{"zkclient", false, true, "zkclient"},
		{"zkclient/h.example", false, false, "zkclient/h.example@ZKRAFT.TEST"},
		{"zkclient/h.example", true, false, "zkclient@ZKRAFT.TEST"},
		{"zkclient/h.example", false, true, "zkclient/h.example"},
		{"zkclient/h.example", true, true, "zkclient"},
	} {
		g := &GSSAPI{Keytab: kt, Principal: testService, RemoveHostFromPrincipal: c.host, RemoveRealmFromPrincipal: c.realm}
		s := g.NewServer()
		require.Empty(t, s.AuthorizationID())
		require.NoError(t, initiator{client: c.client}.build(t, kt).run(t, s, false, nil))
		require.Equal(t, c.want, s.AuthorizationID(), "%+v", c)
	}
}

func TestGSSAPIAuthzidIgnored(t *testing.T) {
	kt := testServiceKeytab(t, "service-secret")
	g := &GSSAPI{Keytab: kt}
	ic := initiator{}.build(t, kt)
	s := g.NewServer()
	require.NoError(t, ic.run(t, s, false, ic.wrap(t, append([]byte{1, 0, 0, 0}, "super"...))))
	require.Equal(t, "zkclient@"+testRealm, s.AuthorizationID())
}

func TestGSSAPIRefusesAPReq(t *testing.T) {
	kt := testServiceKeytab(t, "service-secret")
	now := time.Now()
	for name, c := range map[string]struct {
		in initiator
		g  *GSSAPI
	}{
		"expired ticket":       {initiator{start: now.Add(-3 * time.Hour), end: now.Add(-10 * time.Minute)}, nil},
		"future ticket":        {initiator{start: now.Add(time.Hour), end: now.Add(2 * time.Hour)}, nil},
		"clock skew past":      {initiator{ctime: now.Add(-6 * time.Minute)}, nil},
		"clock skew future":    {initiator{ctime: now.Add(6 * time.Minute)}, nil},
		"short skew":           {initiator{ctime: now.Add(-90 * time.Second)}, &GSSAPI{Keytab: kt, MaxClockSkew: time.Minute}},
		"other service":        {initiator{service: "zookeeper/otherhost"}, &GSSAPI{Keytab: testKeytabFor(t, "zookeeper/otherhost"), Principal: testService}},
		"wrong keytab":         {initiator{}, &GSSAPI{Keytab: testServiceKeytab(t, "other-secret"), Principal: testService}},
		"other realm":          {initiator{}, &GSSAPI{Keytab: kt, Principal: testService + "@OTHER.TEST"}},
		"no keytab":            {initiator{}, &GSSAPI{Principal: testService}},
		"not gss checksum":     {initiator{cksumType: 16}, nil},
		"no key for principal": {initiator{}, &GSSAPI{Keytab: keytab.New()}},
	} {
		t.Run(name, func(t *testing.T) {
			g := c.g
			if g == nil {
				g = &GSSAPI{Keytab: kt, Principal: testService}
			}
			kt := g.Keytab
			if kt == nil || name == "wrong keytab" || name == "no key for principal" || name == "other realm" {
				kt = testServiceKeytab(t, "service-secret")
			}
			s := g.NewServer()
			_, _, err := s.Step(c.in.build(t, kt).token)
			require.ErrorIs(t, err, ErrAuthFailed)
			require.Contains(t, err.Error(), refusalReasons[name])
			require.Empty(t, s.AuthorizationID())
			_, _, err = s.Step(nil)
			require.ErrorIs(t, err, ErrAuthFailed, "a step after a failure")
		})
	}
}

// refusalReasons are what the errors of TestGSSAPIRefusesAPReq say.
var refusalReasons = map[string]string{
	"expired ticket":       "KRB_AP_ERR_TKT_EXPIRED",
	"future ticket":        "KRB_AP_ERR_TKT_NYV",
	"clock skew past":      "KRB_AP_ERR_SKEW",
	"clock skew future":    "KRB_AP_ERR_SKEW",
	"short skew":           "KRB_AP_ERR_SKEW",
	"other service":        "ticket is for zookeeper/otherhost@ZKRAFT.TEST, not zookeeper/localhost",
	"wrong keytab":         "integrity verification failed",
	"other realm":          "not zookeeper/localhost@OTHER.TEST",
	"no keytab":            "no keytab",
	"not gss checksum":     "checksum type 16",
	"no key for principal": "KRB_AP_ERR_NOKEY",
}

func testKeytabFor(t testing.TB, principal string) *keytab.Keytab {
	kt := keytab.New()
	require.NoError(t, kt.AddEntry(principal, testRealm, "service-secret", time.Now(), 1, etypeID.AES256_CTS_HMAC_SHA1_96))
	return kt
}

func TestGSSAPIReplay(t *testing.T) {
	kt := testServiceKeytab(t, "service-secret")
	g := &GSSAPI{Keytab: kt, Principal: testService}
	ic := initiator{}.build(t, kt)
	require.NoError(t, ic.run(t, g.NewServer(), false, nil))
	_, _, err := g.NewServer().Step(ic.token)
	require.ErrorIs(t, err, ErrAuthFailed, "the same AP-REQ on another connection")
	// A fresh authenticator with the same ticket is fine.
	require.NoError(t, initiator{}.build(t, kt).run(t, g.NewServer(), false, nil))
}

func TestGSSAPIRefusesLayerAnswer(t *testing.T) {
	kt := testServiceKeytab(t, "service-secret")
	for name, mk := range map[string]func(ic *initCtx) []byte{
		"integrity layer":  func(ic *initCtx) []byte { return ic.wrap(t, []byte{2, 0, 0, 0}) },
		"privacy layer":    func(ic *initCtx) []byte { return ic.wrap(t, []byte{4, 0, 0, 0}) },
		"two layers":       func(ic *initCtx) []byte { return ic.wrap(t, []byte{3, 0, 0, 0}) },
		"no layer":         func(ic *initCtx) []byte { return ic.wrap(t, []byte{0, 0, 0, 0}) },
		"short":            func(ic *initCtx) []byte { return ic.wrap(t, []byte{1, 0, 0}) },
		"empty":            func(ic *initCtx) []byte { return []byte{} },
		"plain bytes":      func(ic *initCtx) []byte { return []byte{1, 0, 0, 0} },
		"wrong seq":        func(ic *initCtx) []byte { ic.seq++; return ic.wrap(t, []byte{1, 0, 0, 0}) },
		"session key":      func(ic *initCtx) []byte { ic.key = ic.sessionKey; return ic.wrap(t, []byte{1, 0, 0, 0}) },
		"bad checksum":     func(ic *initCtx) []byte { b := ic.wrap(t, []byte{1, 0, 0, 0}); b[len(b)-1] ^= 1; return b },
		"changed payload":  func(ic *initCtx) []byte { b := ic.wrap(t, []byte{1, 0, 0, 0}); b[17] ^= 1; return b },
		"acceptor flag":    func(ic *initCtx) []byte { b := ic.wrap(t, []byte{1, 0, 0, 0}); b[2] |= flagSentByAcceptor; return b },
		"sealed flag":      func(ic *initCtx) []byte { b := ic.wrap(t, []byte{1, 0, 0, 0}); b[2] |= flagSealed; return b },
		"acceptor subkey":  func(ic *initCtx) []byte { b := ic.wrap(t, []byte{1, 0, 0, 0}); b[2] |= flagAcceptorSubkey; return b },
		"the server token": nil,
	} {
		t.Run(name, func(t *testing.T) {
			g := &GSSAPI{Keytab: kt, Principal: testService}
			ic := initiator{}.build(t, kt)
			s := g.NewServer()
			offer, _, err := s.Step(ic.token)
			require.NoError(t, err)
			answer := offer // reflecting the server's own token
			if mk != nil {
				answer = mk(ic)
			}
			_, done, err := s.Step(answer)
			require.ErrorIs(t, err, ErrAuthFailed)
			require.False(t, done)
			require.Empty(t, s.AuthorizationID())
		})
	}
}

func TestGSSAPIMutualAck(t *testing.T) {
	kt := testServiceKeytab(t, "service-secret")
	g := &GSSAPI{Keytab: kt}
	ic := initiator{apMutual: true}.build(t, kt)
	s := g.NewServer()
	_, _, err := s.Step(ic.token)
	require.NoError(t, err)
	_, _, err = s.Step([]byte{0})
	require.ErrorIs(t, err, ErrAuthFailed, "the ack after the AP-REP must be empty")
}

func TestGSSAPIRefusesGarbage(t *testing.T) {
	kt := testServiceKeytab(t, "service-secret")
	good := initiator{}.build(t, kt).token
	_, inner, err := parseGSSToken(good)
	require.NoError(t, err)
	for name, tok := range map[string][]byte{
		"empty":         {},
		"nil":           nil,
		"one byte":      {0x60},
		"raw AP-REQ":    inner,
		"wrong tok id":  frameGSSToken(tokAPRep, inner),
		"wrong oid":     append([]byte{0x60, byte(len(inner) + 13), 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x03, 0x01, 0x00}, inner...)[:len(inner)+15],
		"truncated":     good[:len(good)-1],
		"trailing":      append(append([]byte{}, good...), 0),
		"garbage inner": frameGSSToken(tokAPReq, []byte("hello")),
		"huge":          make([]byte, maxGSSToken+1),
	} {
		t.Run(name, func(t *testing.T) {
			s := (&GSSAPI{Keytab: kt}).NewServer()
			_, _, err := s.Step(tok)
			require.ErrorIs(t, err, ErrAuthFailed)
		})
	}
}

func TestGSSTokenFraming(t *testing.T) {
	for _, n := range []int{0, 1, 100, 127 - 13, 128 - 13, 200, 255 - 13, 256 - 13, 1000, 65000} {
		inner := bytes.Repeat([]byte{0xab}, n)
		tok := frameGSSToken(tokAPReq, inner)
		require.Equal(t, byte(0x60), tok[0])
		id, got, err := parseGSSToken(tok)
		require.NoError(t, err, n)
		require.Equal(t, tokAPReq, id)
		require.Equal(t, inner, got)
	}
	// Known encoding: 13 bytes of OID and id, 120 of body -> 133 = 0x81 0x85.
	tok := frameGSSToken(tokAPRep, make([]byte, 120))
	require.Equal(t, []byte{0x60, 0x81, 0x85, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02, 0x02, 0x00}, tok[:16])
	// Non-minimal lengths are not DER.
	for _, bad := range [][]byte{
		{0x60, 0x81, 0x05, 1, 2, 3, 4, 5},
		{0x60, 0x82, 0x00, 0x85},
		{0x60, 0x80},
		{0x60, 0x85, 1, 1, 1, 1, 1},
	} {
		_, _, err := parseGSSToken(bad)
		require.Error(t, err, "%x", bad)
	}
}

func TestWrapTokens(t *testing.T) {
	for _, e := range []int32{etypeID.AES128_CTS_HMAC_SHA1_96, etypeID.AES256_CTS_HMAC_SHA1_96,
		etypeID.AES128_CTS_HMAC_SHA256_128, etypeID.AES256_CTS_HMAC_SHA384_192} {
		et, err := crypto.GetEtype(e)
		require.NoError(t, err)
		key := types.EncryptionKey{KeyType: e, KeyValue: make([]byte, 16)}
		if e == etypeID.AES256_CTS_HMAC_SHA1_96 || e == etypeID.AES256_CTS_HMAC_SHA384_192 {
			key.KeyValue = make([]byte, 32)
		}
		_, err = rand.Read(key.KeyValue)
		require.NoError(t, err)
		payload := []byte{1, 0, 0x10, 0, 'x'}

		// Ours, checked by gokrb5.
		tok, err := wrapToken(payload, flagSentByAcceptor, 77, key, usageAcceptorSeal)
		require.NoError(t, err)
		var wt gssapi.WrapToken
		require.NoError(t, wt.Unmarshal(tok, true))
		ok, err := wt.Verify(key, usageAcceptorSeal)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, payload, wt.Payload)
		require.Equal(t, uint64(77), wt.SndSeqNum)
		require.Equal(t, uint16(et.GetHMACBitLength()/8), wt.EC)
		_, err = wt.Verify(key, usageInitiatorSeal)
		require.Error(t, err, "the key usage is part of the checksum")

		// Round trip and every single-bit change refused.
		got, err := unwrapToken(tok, true, false, 77, key, usageAcceptorSeal)
		require.NoError(t, err)
		require.Equal(t, payload, got)
		for i := range tok {
			bad := append([]byte{}, tok...)
			bad[i] ^= 0x10
			_, err := unwrapToken(bad, true, false, 77, key, usageAcceptorSeal)
			require.Error(t, err, "byte %d", i)
		}
		_, err = unwrapToken(tok, false, false, 77, key, usageAcceptorSeal)
		require.Error(t, err, "direction")
		_, err = unwrapToken(tok, true, false, 78, key, usageAcceptorSeal)
		require.Error(t, err, "sequence number")
		_, err = unwrapToken(tok, true, false, 77, key, usageInitiatorSeal)
		require.Error(t, err, "key usage")

		// gokrb5's initiator token, checked by us.
		wt = gssapi.WrapToken{EC: uint16(et.GetHMACBitLength() / 8), SndSeqNum: 5, Payload: payload}
		require.NoError(t, wt.SetCheckSum(key, usageInitiatorSeal))
		itok, err := wt.Marshal()
		require.NoError(t, err)
		got, err = unwrapToken(itok, false, false, 5, key, usageInitiatorSeal)
		require.NoError(t, err)
		require.Equal(t, payload, got)

		// The same token with its body rotated right by RRC.
		body := itok[16:]
		for _, rrc := range []int{1, 3, len(body), len(body) + 2} {
			r := rrc % len(body)
			rot := append(append(append([]byte{}, itok[:16]...), body[len(body)-r:]...), body[:len(body)-r]...)
			binary.BigEndian.PutUint16(rot[6:8], uint16(rrc))
			got, err = unwrapToken(rot, false, false, 5, key, usageInitiatorSeal)
			require.NoError(t, err, "rrc %d", rrc)
			require.Equal(t, payload, got)
		}
	}
}

// TestGSSAPIReplayConcurrent sends one AP-REQ on many connections at once:
// exactly one may get past the replay cache.
func TestGSSAPIReplayConcurrent(t *testing.T) {
	kt := testServiceKeytab(t, "service-secret")
	g := &GSSAPI{Keytab: kt, Principal: testService}
	tok := initiator{}.build(t, kt).token
	const n = 16
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			_, _, err := g.NewServer().Step(tok)
			errs <- err
		}()
	}
	ok := 0
	for i := 0; i < n; i++ {
		if err := <-errs; err == nil {
			ok++
		} else {
			require.ErrorIs(t, err, ErrAuthFailed)
			require.Contains(t, err.Error(), "replayed authenticator")
		}
	}
	require.Equal(t, 1, ok)
}
