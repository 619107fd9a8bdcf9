package session

import "crypto/subtle"

// PasswordLen is the length of a session password in bytes.
const PasswordLen = 16

// superSecret is ZooKeeper's fixed password seed (ZooKeeperServer.superSecret).
// It is a checksum for reconnects, not a security measure.
const superSecret int64 = 0xB3415C00

// Constants of java.util.Random's 48-bit linear congruential generator.
const (
	javaMultiplier int64 = 0x5DEECE66D
	javaAddend     int64 = 0xB
	javaMask       int64 = (1 << 48) - 1
)

// javaRandom reproduces java.util.Random bit for bit.
type javaRandom struct{ seed int64 }

// newJavaRandom seeds the generator as new java.util.Random(seed) does.
func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ javaMultiplier) & javaMask}
}

// next returns the next bits-bit value, as Random.next(bits).
func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*javaMultiplier + javaAddend) & javaMask
	return int32(uint64(r.seed) >> (48 - bits))
}

// nextBytes fills b as Random.nextBytes: each int supplies up to four
// bytes, least significant first.
func (r *javaRandom) nextBytes(b []byte) {
	for i := 0; i < len(b); {
		v := r.next(32)
		for n := min(len(b)-i, 4); n > 0; n-- {
			b[i] = byte(v)
			v >>= 8
			i++
		}
	}
}

// Password returns the 16-byte password ZooKeeper derives from a session id
// (ZooKeeperServer.generatePasswd): java.util.Random seeded with
// id ^ 0xB3415C00, then nextBytes(16). Only the low 48 bits of the seed
// matter, so ids differing only in their top 16 bits share a password, as in
// ZooKeeper.
func Password(id int64) []byte {
	p := make([]byte, PasswordLen)
	newJavaRandom(id ^ superSecret).nextBytes(p)
	return p
}

// CheckPassword reports whether passwd is the password of session id, as
// ZooKeeperServer.checkPasswd: id 0 never matches.
func CheckPassword(id int64, passwd []byte) bool {
	if id == 0 {
		return false
	}
	return subtle.ConstantTimeCompare(passwd, Password(id)) == 1
}
