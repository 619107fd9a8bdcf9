package recipes_test

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/recipes"
)

func TestFence_AcceptsOnlyNonDecreasingTokens(t *testing.T) {
	var f recipes.Fence
	steps := []struct {
		token recipes.Token
		want  error
		high  recipes.Token
	}{
		{0, recipes.ErrInvalidToken, 0},
		{-5, recipes.ErrInvalidToken, 0},
		{0x200000003, nil, 0x200000003},
		{0x200000003, nil, 0x200000003}, // the same grant writes again
		{0x200000001, recipes.ErrStaleToken, 0x200000003},
		{0x300000001, nil, 0x300000001},
		{0x200000009, recipes.ErrStaleToken, 0x300000001},
	}
	for i, s := range steps {
		ran := false
		err := f.Do(s.token, func() error { ran = true; return nil })
		if s.want == nil {
			require.NoError(t, err, "#%d", i)
		} else {
			require.ErrorIs(t, err, s.want, "#%d", i)
		}
		require.Equal(t, s.want == nil, ran, "#%d: the write runs exactly when accepted", i)
		require.Equal(t, s.high, f.High(), "#%d", i)
	}
}

func TestFence_CheckDoesNotRaise(t *testing.T) {
	f := recipes.NewFence(10)
	require.NoError(t, f.Check(12))
	require.NoError(t, f.Check(11), "a reader with a smaller token than another reader")
	require.ErrorIs(t, f.Check(9), recipes.ErrStaleToken)
	require.Equal(t, recipes.Token(10), f.High())
	require.NoError(t, f.Accept(11))
	require.ErrorIs(t, f.Check(10), recipes.ErrStaleToken, "older than the last writer")
}

func TestFence_FailedWriteKeepsTheMark(t *testing.T) {
	var f recipes.Fence
	boom := errors.New("disk full")
	require.ErrorIs(t, f.Do(7, func() error { return boom }), boom)
	require.Equal(t, recipes.Token(7), f.High(), "a holder with token 7 exists")
	require.ErrorIs(t, f.Accept(6), recipes.ErrStaleToken)
}

// Writes through a Fence happen in token order, however the callers race:
// the check and the write are one step.
func TestFence_ConcurrentWritesLandInTokenOrder(t *testing.T) {
	var f recipes.Fence
	var mu sync.Mutex
	var landed []recipes.Token
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				tok := recipes.Token(1 + rand.IntN(1000))
				err := f.Do(tok, func() error {
					mu.Lock()
					landed = append(landed, tok)
					mu.Unlock()
					return nil
				})
				if err != nil && !errors.Is(err, recipes.ErrStaleToken) {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	require.NotEmpty(t, landed)
	for i := 1; i < len(landed); i++ {
		require.GreaterOrEqual(t, landed[i], landed[i-1], "write %d landed after a larger token", i)
	}
}

func TestToken_StringAndParse(t *testing.T) {
	tok := recipes.Token(0x200000005)
	require.Equal(t, "0x200000005", tok.String())
	back, err := recipes.ParseToken(tok.String())
	require.NoError(t, err)
	require.Equal(t, tok, back)
	back, err = recipes.ParseToken("8589934597")
	require.NoError(t, err)
	require.Equal(t, tok, back, "decimal")
	for _, bad := range []string{"", "0", "-1", "0x", "zxid", "0x1ffffffffffffffff"} {
		_, err := recipes.ParseToken(bad)
		require.ErrorIs(t, err, recipes.ErrInvalidToken, "%q", bad)
	}
}
