package session

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
)

// Vectors produced by a real JVM (Java 17):
//
//	Random r = new Random(id ^ 0XB3415C00L); byte[] p = new byte[16]; r.nextBytes(p);
var javaPasswords = []struct {
	id   uint64
	want string
}{
	{0x0000000000000000, "f22acd4a97e69d6d20a49bb638eadb38"},
	{0x0000000000000001, "054cc74a37327db215e702e20c73f005"},
	{0x0100000000000000, "f22acd4a97e69d6d20a49bb638eadb38"},
	{0x01632a3f1c0b0000, "f7917d7cb841e4602d17dc21c194a620"},
	{0x7fffffffffffffff, "20f62cb5648dc2d771471c8a2486a9ee"},
	{0x8000000000000001, "054cc74a37327db215e702e20c73f005"},
	{0xffffffffffffffff, "20f62cb5648dc2d771471c8a2486a9ee"},
	{0x00000000b3415c00, "60b420bb3851d9d47acb933dbe70399b"},
	{0x1234567890abcdef, "f7721b383fd583ba74d220ede39f7b43"},
	{0x0100000000000001, "054cc74a37327db215e702e20c73f005"},
}

func TestPasswordMatchesJava(t *testing.T) {
	for _, tc := range javaPasswords {
		got := Password(int64(tc.id))
		require.Len(t, got, PasswordLen)
		require.Equal(t, tc.want, hex.EncodeToString(got), "id 0x%016x", tc.id)
	}
}

func TestJavaRandomNextBytesPartialInt(t *testing.T) {
	// new Random(42).nextBytes(new byte[7]) on a JVM.
	b := make([]byte, 7)
	newJavaRandom(42).nextBytes(b)
	require.Equal(t, "359d41baf78afe", hex.EncodeToString(b))
}

func TestCheckPassword(t *testing.T) {
	id := int64(0x01632a3f1c0b0000)
	pw := Password(id)
	require.True(t, CheckPassword(id, pw))
	require.False(t, CheckPassword(id+1, pw))
	require.False(t, CheckPassword(id, pw[:15]))
	require.False(t, CheckPassword(id, nil))
	bad := append([]byte(nil), pw...)
	bad[3] ^= 1
	require.False(t, CheckPassword(id, bad))
	require.False(t, CheckPassword(0, Password(0)), "id 0 never validates")
}
