package digestmd5

import (
	"crypto/md5"
	"encoding/hex"
)

// NC is the only nonce count used: initial authentication only, so the
// first and only response counts 1.
const NC = "00000001"

// Input is what both the response and rspauth are computed from.
type Input struct {
	Username, Realm, Password string
	Nonce, Cnonce, Authzid    []byte // Authzid nil when not sent
	DigestURI, Qop            string
}

// ResponseValue is RFC 2831's response-value with algorithm md5-sess:
// method is "AUTHENTICATE" for the client's response and "" for rspauth.
// The result is lowercase hex, as the JDK writes and compares it.
func ResponseValue(method string, in *Input) []byte {
	a2 := md5.Sum([]byte(method + ":" + in.DigestURI))
	kd := make([]byte, 0, 128)
	kd = append(kd, hexA1(in)...)
	kd = append(kd, ':')
	kd = append(kd, in.Nonce...)
	kd = append(kd, ":"+NC+":"...)
	kd = append(kd, in.Cnonce...)
	kd = append(kd, ':')
	kd = append(kd, in.Qop...)
	kd = append(kd, ':')
	kd = hex.AppendEncode(kd, a2[:])
	sum := md5.Sum(kd)
	return hex.AppendEncode(nil, sum[:])
}

// hexA1 is hex(MD5(A1)) with A1 = MD5(user:realm:password) ":" nonce ":"
// cnonce [":" authzid].
func hexA1(in *Input) []byte {
	secret := make([]byte, 0, 64)
	secret = append(secret, latin1OrUTF8(in.Username)...)
	secret = append(secret, ':')
	secret = append(secret, latin1OrUTF8(in.Realm)...)
	secret = append(secret, ':')
	secret = append(secret, latin1OrUTF8(in.Password)...)
	h := md5.Sum(secret)
	a1 := append(h[:], ':')
	a1 = append(a1, in.Nonce...)
	a1 = append(a1, ':')
	a1 = append(a1, in.Cnonce...)
	if in.Authzid != nil {
		a1 = append(a1, ':')
		a1 = append(a1, in.Authzid...)
	}
	sum := md5.Sum(a1)
	return hex.AppendEncode(nil, sum[:])
}

// latin1OrUTF8 encodes s as ISO-8859-1 when every character fits and as
// UTF-8 otherwise, string by string, as the JDK's stringToByte_8859_1 does
// with UTF-8 enabled.
func latin1OrUTF8(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xFF { // includes utf8.RuneError for invalid bytes
			return []byte(s)
		}
		out = append(out, byte(r))
	}
	return out
}
