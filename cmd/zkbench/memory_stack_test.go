package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGoLiveHeapCountsStacks: a zkserver's live figure is its heap plus
// its goroutine stacks, which a goroutine per connection fills; a reply
// without stack_inuse (an older zkserver) counts the heap alone.
func TestGoLiveHeapCountsStacks(t *testing.T) {
	body := `{"heap_alloc":1000,"stack_inuse":800,"gc_forced":true}`
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body)) }))
	defer hs.Close()
	got, err := goLiveHeap(context.Background(), hs.URL)
	require.NoError(t, err)
	require.Equal(t, int64(1800), got)

	body = `{"heap_alloc":1000,"gc_forced":true}`
	got, err = goLiveHeap(context.Background(), hs.URL)
	require.NoError(t, err)
	require.Equal(t, int64(1000), got)
}
