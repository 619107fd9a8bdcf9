package console

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
)

// TestAnonymousStreamsLeaveReservedSlots: anonymous pages can hold all
// event streams but reservedStreams; those stay for callers with
// credentials, so that anonymous pages cannot lock an operator out.
func TestAnonymousStreamsLeaveReservedSlots(t *testing.T) {
	c, base := serve(t, newFakeView(), time.Hour)
	for range maxStreams - reservedStreams {
		require.NotNil(t, c.hub.join(false))
	}
	require.Nil(t, c.hub.join(false), "one anonymous stream too many")
	status, _, _ := get(t, base+EventsPath)
	require.Equal(t, http.StatusServiceUnavailable, status, "an anonymous page is refused")
	for range reservedStreams {
		require.NotNil(t, c.hub.join(true), "a verified caller gets a reserved slot")
	}
	require.Nil(t, c.hub.join(true))
}

// recordingView counts the calls that turn the replication recording on.
type recordingView struct {
	*fakeView
	watched atomic.Int64
}

func (v *recordingView) WatchReplication() { v.watched.Add(1) }
func (v *recordingView) Replication(map[int64]server.TraceCursor, int) server.ReplicationTrace {
	return server.ReplicationTrace{}
}

// TestAnonymousReplicationPollsRecordNothing: polling the replication
// route turns the ensemble's message recording on only for a caller with
// credentials; an anonymous poll answers what is there and costs nothing.
func TestAnonymousReplicationPollsRecordNothing(t *testing.T) {
	v := &recordingView{fakeView: newFakeView()}
	c := New(v, Options{})
	poll := func(auth string) int {
		r := httptest.NewRequest(http.MethodGet, ReplicationPath, nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		return w.Code
	}
	require.Equal(t, http.StatusOK, poll(""))
	require.Equal(t, http.StatusOK, poll("digest nobody:x"))
	require.Zero(t, v.watched.Load(), "anonymous polls turned the recording on")
	require.Equal(t, http.StatusOK, poll(v.authUser))
	require.EqualValues(t, 1, v.watched.Load())
}
