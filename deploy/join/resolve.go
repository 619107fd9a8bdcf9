package join

import (
	"context"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"
)

// OwnLine is the value of the server.id= line among lines, "" when none.
func OwnLine(lines []string, id int64) string {
	key := "server." + strconv.FormatInt(id, 10) + "="
	for _, l := range lines {
		if strings.HasPrefix(l, key) {
			return strings.TrimPrefix(l, key)
		}
	}
	return ""
}

// WaitResolvable waits until the host of a server line resolves. A
// StatefulSet pod's own name (zk-0.zk-hs) appears in DNS a moment after
// the pod starts, and the server binds its peer port on that name.
func WaitResolvable(ctx context.Context, line string, log *slog.Logger) error {
	addr, err := PeerAddr(line)
	if err != nil {
		return err
	}
	host, _, _ := net.SplitHostPort(addr)
	for logged := false; ; {
		lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := net.DefaultResolver.LookupHost(lctx, host)
		cancel()
		if err == nil {
			return nil
		}
		if !logged {
			log.Info("waiting for this server's name to resolve", "host", host, "err", err)
			logged = true
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond): // DNS poll interval
		}
	}
}
