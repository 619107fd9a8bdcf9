package session

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

func TestTableBasics(t *testing.T) {
	tb := NewTable()
	require.Zero(t, tb.Len())
	tb.Add(30, 6000)
	tb.Add(10, 4000)
	tb.Add(20, 5000)
	tb.Add(10, 4500) // replaces
	require.Equal(t, 3, tb.Len())
	info, ok := tb.Get(10)
	require.True(t, ok)
	require.Equal(t, Info{ID: 10, Timeout: 4500}, info)
	_, ok = tb.Get(99)
	require.False(t, ok)
	require.Equal(t, []Info{{10, 4500}, {20, 5000}, {30, 6000}}, tb.List())
	require.True(t, tb.Remove(20))
	require.False(t, tb.Remove(20))
	require.Equal(t, []Info{{10, 4500}, {30, 6000}}, tb.List())
}

func TestTableSnapshotRoundTrip(t *testing.T) {
	tb := NewTable()
	tb.Add(-5, 4000)
	tb.Add(0x0100000000000001, 30000)
	tb.Add(7, 2)
	var e wire.Encoder
	tb.Snapshot(&e)
	require.Equal(t, 4+3*12, e.Len())

	got, err := RestoreTable(wire.NewDecoder(e.Bytes(), 0))
	require.NoError(t, err)
	require.Equal(t, tb.List(), got.List())
}

func TestTableSnapshotEmpty(t *testing.T) {
	var e wire.Encoder
	NewTable().Snapshot(&e)
	require.Equal(t, []byte{0, 0, 0, 0}, e.Bytes())
	got, err := RestoreTable(wire.NewDecoder(e.Bytes(), 0))
	require.NoError(t, err)
	require.Zero(t, got.Len())
}

func TestRestoreTableErrors(t *testing.T) {
	enc := func(f func(e *wire.Encoder)) []byte {
		var e wire.Encoder
		f(&e)
		return e.Bytes()
	}
	cases := map[string][]byte{
		"empty":          nil,
		"negative count": enc(func(e *wire.Encoder) { e.Int(-1) }),
		"count too big":  enc(func(e *wire.Encoder) { e.Int(2); e.Long(1); e.Int(1) }),
		"truncated":      enc(func(e *wire.Encoder) { e.Int(1); e.Long(1) })[:10],
		"duplicate": enc(func(e *wire.Encoder) {
			e.Int(2)
			e.Long(1)
			e.Int(1)
			e.Long(1)
			e.Int(2)
		}),
	}
	for name, b := range cases {
		_, err := RestoreTable(wire.NewDecoder(b, 0))
		require.Error(t, err, name)
	}
}
