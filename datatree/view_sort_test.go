package datatree

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortKidsOrdersByName checks the keyed sort of a walk's children
// against a plain sort of the names, for names with long shared
// prefixes, names that are prefixes of others, sequential-node suffixes,
// bytes above 0x7f and zero bytes.
func TestSortKidsOrdersByName(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{0, 1, '0', '9', 'a', 'z', 0x7f, 0x80, 0xff}
	gen := []func() []byte{
		func() []byte { // short names over a small alphabet: many ties and prefixes
			b := make([]byte, 1+r.IntN(10))
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
			return b
		},
		func() []byte { // sequential znodes: one long shared prefix
			return []byte("lock-" + string(rune('0'+r.IntN(2))) + "00000" + itoa10(r.IntN(100000)))
		},
		func() []byte { return []byte(itoa10(r.IntN(1 << 20))) },
	}
	for round := range 300 {
		g := gen[round%len(gen)]
		seen := map[string]bool{}
		var kids []kid
		for range 1 + r.IntN(200) {
			name := g()
			if seen[string(name)] {
				continue
			}
			seen[string(name)] = true
			kids = append(kids, kid{name: name})
		}
		want := make([][]byte, len(kids))
		for i, k := range kids {
			want[i] = k.name
		}
		slices.SortFunc(want, bytes.Compare)
		sortKids(kids)
		for i, k := range kids {
			if !bytes.Equal(k.name, want[i]) {
				t.Fatalf("round %d: position %d holds %q, want %q", round, i, k.name, want[i])
			}
		}
	}
}

// itoa10 writes n in decimal, padded to 10 digits as a sequential
// znode's counter is.
func itoa10(n int) string {
	b := []byte("0000000000")
	for i := len(b) - 1; i >= 0 && n > 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b)
}
