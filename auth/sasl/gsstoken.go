package sasl

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/types"
)

// krb5OID is the DER encoding (tag, length, value) of the Kerberos v5
// GSS-API mechanism OID 1.2.840.113554.1.2.2 (RFC 1964).
var krb5OID = []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02}

// Token ids of RFC 4121 section 4.1 and 4.2.6.2.
var (
	tokAPReq = [2]byte{0x01, 0x00}
	tokAPRep = [2]byte{0x02, 0x00}
	tokWrap  = [2]byte{0x05, 0x04}
)

// Wrap token flags (RFC 4121 section 4.2.2).
const (
	flagSentByAcceptor = 0x01
	flagSealed         = 0x02
	flagAcceptorSubkey = 0x04
)

// Key usages of RFC 4121 section 2.
const (
	usageAcceptorSeal  = 22
	usageInitiatorSeal = 24
)

// maxGSSToken bounds any token this package parses.
const maxGSSToken = 64 << 10

// frameGSSToken wraps a Kerberos message in the RFC 2743 section 3.1
// InitialContextToken framing: [APPLICATION 0] { krb5 OID, tokID, inner }.
func frameGSSToken(tokID [2]byte, inner []byte) []byte {
	body := make([]byte, 0, len(krb5OID)+2+len(inner))
	body = append(body, krb5OID...)
	body = append(body, tokID[:]...)
	body = append(body, inner...)
	out := []byte{0x60}
	out = appendDERLength(out, len(body))
	return append(out, body...)
}

func appendDERLength(b []byte, n int) []byte {
	if n < 0x80 {
		return append(b, byte(n))
	}
	var tmp [8]byte
	i := len(tmp)
	for n > 0 {
		i--
		tmp[i] = byte(n)
		n >>= 8
	}
	b = append(b, 0x80|byte(len(tmp)-i))
	return append(b, tmp[i:]...)
}

// parseGSSToken undoes frameGSSToken: it checks the framing and the
// mechanism OID and returns the token id and the inner Kerberos message.
func parseGSSToken(b []byte) (tokID [2]byte, inner []byte, err error) {
	if len(b) > maxGSSToken {
		return tokID, nil, errors.New("token too long")
	}
	if len(b) < 2 || b[0] != 0x60 {
		return tokID, nil, errors.New("not a GSS-API initial context token")
	}
	n, rest, err := readDERLength(b[1:])
	if err != nil {
		return tokID, nil, err
	}
	if n != len(rest) {
		return tokID, nil, fmt.Errorf("token length %d, %d bytes follow", n, len(rest))
	}
	if !bytes.HasPrefix(rest, krb5OID) {
		return tokID, nil, errors.New("mechanism is not Kerberos v5")
	}
	rest = rest[len(krb5OID):]
	if len(rest) < 2 {
		return tokID, nil, errors.New("token id missing")
	}
	copy(tokID[:], rest)
	return tokID, rest[2:], nil
}

// readDERLength reads a definite DER length.
func readDERLength(b []byte) (int, []byte, error) {
	if len(b) == 0 {
		return 0, nil, errors.New("length missing")
	}
	if b[0] < 0x80 {
		return int(b[0]), b[1:], nil
	}
	k := int(b[0] & 0x7f)
	if k == 0 || k > 3 || len(b) < 1+k {
		return 0, nil, errors.New("bad length")
	}
	n := 0
	for _, c := range b[1 : 1+k] {
		n = n<<8 | int(c)
	}
	if n < 0x80 || (k > 1 && b[1] == 0) {
		return 0, nil, errors.New("length not in DER form")
	}
	return n, b[1+k:], nil
}

// cfxKey reports whether key can protect RFC 4121 tokens: this package
// supports the AES enctypes only (RFC 3962 and RFC 8009), not the RFC
// 1964 tokens that DES and RC4 keys use.
func cfxKey(key types.EncryptionKey) bool {
	switch key.KeyType {
	case etypeID.AES128_CTS_HMAC_SHA1_96, etypeID.AES256_CTS_HMAC_SHA1_96,
		etypeID.AES128_CTS_HMAC_SHA256_128, etypeID.AES256_CTS_HMAC_SHA384_192:
		return true
	}
	return false
}

// wrapToken builds an RFC 4121 Wrap token without confidentiality: header
// (flags, EC = checksum length, RRC = 0, sequence number), payload and a
// checksum over payload | header (with EC and RRC zero) made with key
// and usage.
func wrapToken(payload []byte, flags byte, seq uint64, key types.EncryptionKey, usage uint32) ([]byte, error) {
	et, err := crypto.GetEtype(key.KeyType)
	if err != nil {
		return nil, err
	}
	sum, err := et.GetChecksumHash(key.KeyValue, wrapChecksumInput(payload, flags, seq), usage)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 16, 16+len(payload)+len(sum))
	copy(out, tokWrap[:])
	out[2] = flags
	out[3] = 0xff
	binary.BigEndian.PutUint16(out[4:], uint16(len(sum)))
	binary.BigEndian.PutUint64(out[8:], seq)
	out = append(out, payload...)
	return append(out, sum...), nil
}

func wrapChecksumInput(payload []byte, flags byte, seq uint64) []byte {
	in := make([]byte, 0, len(payload)+16)
	in = append(in, payload...)
	in = append(in, tokWrap[0], tokWrap[1], flags, 0xff, 0, 0, 0, 0)
	return binary.BigEndian.AppendUint64(in, seq)
}

// unwrapToken checks an RFC 4121 Wrap token without confidentiality from
// the peer: token id, filler, the SentByAcceptor flag (fromAcceptor), the
// AcceptorSubkey flag (acceptorSubkey), the sequence number and the
// checksum; it undoes a right rotation (RRC). Sealed tokens are refused.
func unwrapToken(tok []byte, fromAcceptor, acceptorSubkey bool, seq uint64, key types.EncryptionKey, usage uint32) ([]byte, error) {
	if len(tok) > maxGSSToken {
		return nil, errors.New("wrap token too long")
	}
	if len(tok) < 16 || tok[0] != tokWrap[0] || tok[1] != tokWrap[1] {
		return nil, errors.New("not a wrap token")
	}
	flags := tok[2]
	if tok[3] != 0xff {
		return nil, errors.New("bad filler")
	}
	if flags&^(flagSentByAcceptor|flagSealed|flagAcceptorSubkey) != 0 {
		return nil, errors.New("unknown wrap flags")
	}
	if (flags&flagSentByAcceptor != 0) != fromAcceptor {
		return nil, errors.New("wrong direction")
	}
	if (flags&flagAcceptorSubkey != 0) != acceptorSubkey {
		return nil, errors.New("wrong AcceptorSubkey flag")
	}
	if flags&flagSealed != 0 {
		return nil, errors.New("sealed wrap tokens are not supported")
	}
	if got := binary.BigEndian.Uint64(tok[8:16]); got != seq {
		return nil, fmt.Errorf("sequence number %d, want %d", got, seq)
	}
	ec := int(binary.BigEndian.Uint16(tok[4:6]))
	rrc := int(binary.BigEndian.Uint16(tok[6:8]))
	body := tok[16:]
	if len(body) > 0 && rrc%len(body) != 0 {
		r := rrc % len(body)
		body = append(append([]byte{}, body[r:]...), body[:r]...)
	}
	et, err := crypto.GetEtype(key.KeyType)
	if err != nil {
		return nil, err
	}
	if ec != et.GetHMACBitLength()/8 || ec > len(body) {
		return nil, errors.New("bad checksum length")
	}
	payload, sum := body[:len(body)-ec], body[len(body)-ec:]
	ok, err := verifyChecksum(et.GetChecksumHash, key, wrapChecksumInput(payload, flags, seq), sum, usage)
	if err != nil || !ok {
		return nil, errors.New("wrap token checksum mismatch")
	}
	return append([]byte{}, payload...), nil
}

func verifyChecksum(hash func(key, data []byte, usage uint32) ([]byte, error), key types.EncryptionKey, data, sum []byte, usage uint32) (bool, error) {
	want, err := hash(key.KeyValue, data, usage)
	if err != nil {
		return false, err
	}
	return len(want) == len(sum) && subtleEqual(want, sum), nil
}
